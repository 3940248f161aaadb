// Playing with no server: the same JSON API the server answers (docs/web-api.md), answered in
// this page by the rules and the engine compiled to WebAssembly (crates/damasi-wasm: `Game`
// for the rules, the engine in a Web Worker that `engine.js` can stop at once). api.js sends
// its requests here instead of over the network when `Local.active`: when the page was
// exported as static files (no server behind it), or when the reader chooses the engine in
// this browser. Games are kept in this browser (localStorage); games have no clock here.
// Learn's course is static data: the export ships it (learn/*.json beside the page); puzzles
// need the server (their solutions and ratings are its), so the exported page has none, and
// with a server behind the page its requests go there.
import { ApiError } from "./errors.js";
import { t } from "./i18n.js";

export const Local = (() => {
  const meta = /** @type {HTMLMetaElement|null} */ (document.querySelector('meta[name="damasi-wasm"]'));
  // Where the WebAssembly build and the engine's worker are: `/wasm/` on the damasi server,
  // `../` in the exported static site.
  const base = meta ? new URL(meta.content, location.href).href : null;
  // The page exported as static files (`damasi export-site`): no damasi server behind it.
  const noServer = !!meta && meta.dataset.noServer === "1";
  const KEY = "damasi.local.games";
  const state = { active: false, engine: null, wasm: null, parseInfo: null, games: new Map(), nextId: 1, analysis: null };

  // A refusal in the server's shape (errors.js's ApiError).
  const fail = (status, code, message, extra = {}) => new ApiError(status, { error: message, code, ...extra });
  const other = (side) => (side === "white" ? "black" : "white");
  const now = () => new Date().toISOString().replace("T", " ").slice(0, 19);

  async function start() {
    if (state.active) return;
    if (!base) throw new Error("this page has no in-browser engine");
    const wasm = await import(base + "damasi_wasm.js");
    await wasm.default();
    const eng = await import(base + "engine.js");
    state.wasm = wasm;
    state.parseInfo = eng.parseInfo;
    state.engine = new eng.BrowserEngine(new URL("worker.js", base));
    // The exported site works offline: its service worker keeps every file (sw.js).
    if (noServer && "serviceWorker" in navigator) {
      navigator.serviceWorker.register(new URL("sw.js", base)).catch((e) => console.warn("service worker:", e));
    }
    load();
    state.active = true;
    // Games left with the engine to move go on.
    for (const rec of state.games.values()) kick(rec);
  }

  // ----- games in localStorage

  function load() {
    let saved = [];
    try { saved = JSON.parse(localStorage.getItem(KEY) || "[]"); } catch (_) { saved = []; }
    for (const r of Array.isArray(saved) ? saved : []) {
      try {
        const game = state.wasm.Game.from_pdn(r.pdn);
        state.games.set(r.id, { ...r, game, version: 1, thinking: false, failed: null, waiters: [] });
        state.nextId = Math.max(state.nextId, r.id + 1);
      } catch (e) { console.warn("local game", r.id, e); }
    }
  }

  function save() {
    const list = [...state.games.values()].map((r) => ({
      id: r.id, white: r.white, black: r.black, created: r.created, updated: r.updated,
      offers: r.offers, pending: r.pending, pdn: r.game.pdn(),
    }));
    localStorage.setItem(KEY, JSON.stringify(list));
  }

  function changed(rec) {
    rec.version++;
    rec.updated = now();
    save();
    const waiters = rec.waiters;
    rec.waiters = [];
    for (const w of waiters) w();
  }

  function record(id) {
    const rec = state.games.get(id);
    if (!rec) throw fail(404, "not-found", `no game ${id}`);
    return rec;
  }

  function view(rec) {
    const v = JSON.parse(rec.game.view());
    return {
      id: rec.id, version: rec.version, created: rec.created, updated: rec.updated,
      white: rec.white, black: rec.black, rules: "turkish",
      start_fen: v.start_fen, fen: v.fen, side: v.side, plies: v.plies,
      plies_page: { from: 0, total: v.plies.length, more_before: false, more_after: false },
      legal: v.legal, forced_capture: v.forced_capture, outcome: v.outcome, clock: null,
      engine: { state: rec.thinking ? "thinking" : rec.failed ? "failed" : "idle", error: rec.failed },
      draw: { offers: rec.offers, max: 2, pending: rec.pending }, tags: {}, local: true,
    };
  }

  const over = (rec) => JSON.parse(rec.game.view()).outcome;
  function checkOngoing(rec) {
    const o = over(rec);
    if (o.over) throw fail(409, "game-over", `the game is over: ${o.reason}`, { params: { outcome: o.code } });
  }
  function checkPerson(rec, side, what) {
    if (side !== "white" && side !== "black") throw fail(400, "bad-request", `side '${side}': expected 'white' or 'black'`);
    if (rec[side].kind === "engine") throw fail(403, "engine-side", `the engine plays ${side}: it does not ${what}`);
  }

  // ----- the engine

  // `play`: the engine's own move in a game (its contempt for a draw), else analysis (none).
  // The opening book stays off (it lost its match, docs/book.md).
  function hubLines(game, level, seconds, play) {
    const moves = game.hub_moves();
    return [
      `set-param name=level value=${level}`,
      "set-param name=book value=false",
      `set-param name=contempt value=${play ? state.wasm.playContempt() : 0}`,
      `pos pos=${game.start_board()}` + (moves ? ` moves="${moves}"` : ""),
      `level move-time=${seconds}`,
      "go think",
    ];
  }

  // Starts the engine when it is to move in `rec`; its move arrives as a new version.
  async function kick(rec) {
    const side = rec.game.turn();
    if (rec.thinking || over(rec).over || rec[side].kind !== "engine") return;
    const level = rec[side].level || 5;
    rec.thinking = true;
    rec.failed = null;
    const token = (rec.token = {});
    changed(rec);
    // The level's thinking time, as the engine crate sets it for the browser.
    const seconds = state.wasm.moveTimeMs(level) / 1000;
    const res = await state.engine.search(hubLines(rec.game, level, seconds, true));
    if (rec.token !== token) return;
    rec.thinking = false;
    if (res.move) {
      try { rec.game.play_hub(res.move); } catch (e) { rec.failed = String(e); }
    } else {
      rec.failed = res.stopped ? "stopped" : "no move";
    }
    changed(rec);
  }

  // Stops the engine's thought in `rec`, if any.
  function halt(rec) {
    if (!rec.thinking) return;
    rec.token = null;
    rec.thinking = false;
    state.engine.stop();
  }

  // The best move of a game for its side to move, and the search's figures. A hint or an
  // analysis replaces one still under way (and stops when its request is aborted); a game's
  // engine move under way is not interrupted for it.
  async function think(game, seconds, signal) {
    if (state.engine.busy) {
      if (!state.analysis) throw fail(503, "engine-busy", "the engine is busy");
      state.engine.stop();
    }
    const token = (state.analysis = {});
    if (signal) signal.addEventListener("abort", () => { if (state.analysis === token) state.engine.stop(); });
    let res;
    try {
      res = await state.engine.search(hubLines(game, 10, seconds, false));
    } finally {
      if (state.analysis === token) state.analysis = null;
    }
    if (signal && signal.aborted) throw new DOMException("aborted", "AbortError");
    const info = state.parseInfo(res.info);
    const legal = JSON.parse(game.view()).legal;
    // The line in landing notation, replayed on a copy of the game.
    const copy = state.wasm.Game.from_pdn(game.pdn());
    const pv = [];
    for (const m of info.pv) { try { pv.push(copy.play_hub(m)); } catch (_) { break; } }
    const white = game.turn() === "white";
    return {
      best: res.move ? legal.find((m) => m.landing === pv[0]) || null : null,
      score: info.score, white_score: white ? info.score : -info.score, mate: null,
      pv, depth: info.depth,
    };
  }

  // `searchmoves` without a server: the browser's engine has no restricted search, so each
  // move's position is searched for an equal share of the time (the same ply, the same
  // time: scores that compare), and the moves come back as lines, best first.
  async function compare(body, only, seconds, signal) {
    const lines = [];
    for (const [i, text] of only.entries()) {
      const g = gameFrom(body.fen, body.moves);
      try { playText(g, String(text)); } catch (e) { e.message = `searchmoves[${i}]: ${e.message}`; throw e; }
      const v = JSON.parse(g.view());
      const move = v.plies[v.plies.length - 1].move;
      if (v.outcome.over) {
        // The move ends the game: won (the next move) or drawn, no search needed.
        const mover = other(v.side);
        const score = v.outcome.winner === mover ? 10000 : v.outcome.winner ? -10000 : 0;
        const white_score = mover === "white" ? score : -score;
        lines.push({ move, score, white_score, mate: score ? Math.sign(score) : null, pv: [move.landing], depth: 1 });
        continue;
      }
      const r = await think(g, seconds / only.length, signal);
      lines.push({ move, score: -r.score, white_score: r.white_score, mate: null, pv: [move.landing, ...r.pv], depth: r.depth + 1 });
    }
    lines.sort((a, b) => b.score - a.score);
    const top = lines[0];
    return { best: top.move, score: top.score, white_score: top.white_score, mate: null, pv: top.pv, depth: top.depth, lines };
  }

  // ----- the API

  // A new game (`imported`: one read from PDN), saved; the engine starts if it is to move.
  function create(body, imported) {
    body = body || {};
    if (body.clock) throw fail(400, "bad-request", "clocks need the server: play without a clock in this browser");
    let game = imported;
    if (!game) {
      try { game = body.fen ? state.wasm.Game.from_fen(body.fen) : new state.wasm.Game(); } catch (e) { throw fail(400, "bad-request", String(e)); }
    }
    const player = (p) => (p && p.kind === "engine" ? { kind: "engine", level: Math.min(10, Math.max(1, Number(p.level) || 5)) } : { kind: "human" });
    const rec = {
      id: state.nextId++, white: player(body.white), black: player(body.black), created: now(), updated: now(),
      offers: { white: 0, black: 0 }, pending: null, game, version: 0, thinking: false, failed: null, waiters: [],
    };
    state.games.set(rec.id, rec);
    changed(rec);
    kick(rec);
    return view(rec);
  }

  function playText(game, text) {
    try { return game.play(text); } catch (e) {
      const msg = String(e);
      const legal = JSON.parse(game.view()).legal.map((m) => m.landing);
      throw fail(422, /ambiguous/i.test(msg) ? "ambiguous-move" : "illegal-move", msg, { legal });
    }
  }

  function position(game) {
    const v = JSON.parse(game.view());
    return { fen: v.fen, side: v.side, forced_capture: v.forced_capture, moves: v.legal, outcome: v.outcome };
  }

  function gameFrom(fen, moves) {
    let g;
    try { g = fen && fen !== "startpos" ? state.wasm.Game.from_fen(fen) : new state.wasm.Game(); } catch (e) { throw fail(400, "bad-request", String(e)); }
    (moves || []).forEach((m, i) => {
      try { g.play(m); } catch (e) { throw fail(422, "illegal-move", `moves[${i}]: ${e}`, { legal: [] }); }
    });
    return g;
  }

  function waitPast(rec, seen, signal) {
    if (rec.version > seen) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(resolve, 25000);
      rec.waiters.push(() => { clearTimeout(timer); resolve(); });
      if (signal) signal.addEventListener("abort", () => { clearTimeout(timer); reject(new DOMException("aborted", "AbortError")); });
    });
  }

  async function api(method, path, body, signal) {
    const url = new URL(path, location.href);
    const parts = url.pathname.replace(/^\/api\/?/, "").split("/").filter(Boolean);
    const q = url.searchParams;
    const route = method + " " + parts.map((p, i) => (i === 1 && parts[0] === "games" ? ":id" : p)).join("/");
    const id = parts[0] === "games" && parts[1] ? Number(parts[1]) : null;
    switch (route) {
      case "GET health": return { ok: true, engine: "browser" };
      case "GET moves": return position(gameFrom(q.get("fen")));
      case "POST move": {
        const g = gameFrom(body.fen, body.moves);
        playText(g, body.move);
        const v = JSON.parse(g.view());
        return { move: v.plies[v.plies.length - 1].move, position: position(g) };
      }
      case "POST analyze":
      case "POST engine/move": {
        const g = gameFrom(body.fen, body.moves);
        const seconds = Math.min(10, (Number(body.move_time_ms) || 1000) / 1000);
        const only = route === "POST analyze" && Array.isArray(body.searchmoves) ? body.searchmoves : [];
        if (only.length) return compare(body, only, seconds, signal);
        return think(g, seconds, signal);
      }
      case "GET games":
        // As the server: only games that were played (a move made, or over).
        return [...state.games.values()].sort((a, b) => (a.updated < b.updated ? 1 : -1)).flatMap((r) => {
          const o = over(r);
          const plies = r.game.ply();
          if (!plies && !o.over) return [];
          const blackFirst = JSON.parse(r.game.view()).start_fen.startsWith("B");
          return [{
            id: r.id, created: r.created, updated: r.updated, white: r.white, black: r.black,
            plies, moves: Math.floor((plies + (blackFirst ? 1 : 0) + 1) / 2), result: o.result, outcome: o.code, reason: o.reason,
            event: null, white_name: null, black_name: null,
          }];
        });
      case "POST games": return create(body);
      case "POST pdn/import": {
        let game;
        try { game = state.wasm.Game.from_pdn(String(body.pdn || "")); } catch (e) { throw fail(400, "bad-request", `PDN: ${e}`); }
        return { ids: [create({}, game).id], errors: [] };
      }
      case "GET games/:id": {
        const rec = record(id);
        if (q.has("wait_version")) await waitPast(rec, Number(q.get("wait_version")), signal);
        return view(rec);
      }
      case "DELETE games/:id": {
        const rec = record(id);
        halt(rec);
        state.games.delete(id);
        save();
        return null;
      }
      case "POST games/:id/move": {
        const rec = record(id);
        checkOngoing(rec);
        const side = rec.game.turn();
        if (rec[side].kind === "engine") throw fail(409, "not-your-turn", `the engine plays ${side}`);
        if (rec.pending) rec.pending = null;
        playText(rec.game, String(body.move || ""));
        changed(rec);
        kick(rec);
        return view(rec);
      }
      case "POST games/:id/engine": {
        const rec = record(id);
        checkOngoing(rec);
        if (rec[rec.game.turn()].kind !== "engine") throw fail(409, "not-your-turn", "a person is to move");
        kick(rec);
        return view(rec);
      }
      case "POST games/:id/hint": {
        const rec = record(id);
        checkOngoing(rec);
        checkPerson(rec, rec.game.turn(), "ask for hints");
        return think(rec.game, 0.8);
      }
      case "POST games/:id/takeback": {
        const rec = record(id);
        checkOngoing(rec);
        checkPerson(rec, body.side, "take back");
        const firstMover = JSON.parse(rec.game.view()).start_fen.startsWith("B") ? "black" : "white";
        const ply = rec.game.ply();
        const own = ply > 1 || (ply === 1 && firstMover === body.side);
        if (!own) throw fail(409, "nothing-to-take-back", `${body.side} has no move to take back`);
        halt(rec);
        for (;;) {
          const mover = other(rec.game.turn());
          if (!rec.game.undo()) break;
          if (mover === body.side) break;
        }
        rec.failed = null;
        changed(rec);
        kick(rec);
        return view(rec);
      }
      case "POST games/:id/resign": {
        const rec = record(id);
        checkOngoing(rec);
        checkPerson(rec, body.side, "resign");
        halt(rec);
        rec.game.resign(body.side);
        changed(rec);
        return view(rec);
      }
      case "POST games/:id/draw": {
        const rec = record(id);
        checkOngoing(rec);
        checkPerson(rec, body.side, "offer draws");
        if (rec.offers[body.side] >= 2) throw fail(409, "draw-offers-used", `${body.side} has offered a draw twice`);
        rec.offers[body.side]++;
        const vsEngine = rec[other(body.side)].kind === "engine";
        // The engine in the browser plays on: it declines.
        if (!vsEngine) rec.pending = body.side;
        changed(rec);
        return { accepted: false, pending: !vsEngine, game: view(rec) };
      }
      case "POST games/:id/draw/answer": {
        const rec = record(id);
        checkOngoing(rec);
        checkPerson(rec, body.side, "answer draw offers");
        if (!rec.pending || rec.pending === body.side) throw fail(409, "no-draw-offer", "no draw offer to answer");
        rec.pending = null;
        if (body.accept) rec.game.agree_draw();
        changed(rec);
        return view(rec);
      }
      case "POST games/:id/flag": throw fail(409, "no-clock", "this game has no clock");
      // The course, as the export wrote it beside the page (`damasi export-site`).
      case "GET learn/course":
      case "GET learn/examples": {
        const res = await fetch(new URL(parts.join("/") + ".json", location.href), { signal });
        if (!res.ok) throw fail(404, "not-found", `${url.pathname}: not in this export`);
        return res.json();
      }
      default: throw fail(404, "not-found", `no such endpoint: ${url.pathname}`);
    }
  }

  // The PDN of a game, for the export link.
  function pdn(id) {
    const rec = state.games.get(id);
    return rec ? rec.game.pdn() : "";
  }

  // What the page shows only in this mode: the Stop button while the engine thinks, the PDN
  // export as a file made here. Called by the play view whenever it draws its buttons.
  let exportUrl = null;
  function decorate(g) {
    const stopButton = document.getElementById("btn-stop");
    const thinking = state.active && !!g && !g.outcome.over && g.engine && g.engine.state === "thinking";
    if (stopButton) stopButton.hidden = !thinking;
    const link = /** @type {HTMLAnchorElement|null} */ (document.getElementById("btn-export-play"));
    if (state.active && g && link) {
      if (exportUrl) URL.revokeObjectURL(exportUrl);
      exportUrl = URL.createObjectURL(new Blob([pdn(g.id)], { type: "application/x-pdn" }));
      link.href = exportUrl;
    }
    const mode = document.getElementById("btn-engine-mode");
    if (mode) {
      mode.hidden = !base || noServer;
      mode.textContent = t(state.active ? "engineInBrowser" : "engineOnServer");
    }
  }

  // Switches between the server and this browser (kept for the next visit), by reloading.
  function toggle() {
    localStorage.setItem("damasi.engine", state.active ? "server" : "browser");
    location.reload();
  }

  // Whether the page should answer here: the reader chose it, or the page was exported as
  // static files with no damasi server behind it. A page the server sent keeps to the server
  // when it cannot reach it for a while (a restart): it says so and reconnects.
  async function wanted() {
    if (!base) return false;
    if (noServer) return true;
    const choice = new URLSearchParams(location.search).get("engine") || localStorage.getItem("damasi.engine");
    return choice === "browser";
  }

  // Stops the engine's thought in game `id` (the page offers this while it thinks).
  function stop(id) {
    const rec = state.games.get(id);
    if (!rec || !rec.thinking) return false;
    halt(rec);
    rec.failed = "stopped";
    changed(rec);
    return true;
  }

  // Whether this page answers the request `path` itself: everything without a server; with
  // one, all but the course and puzzles, which are the server's.
  /** @param {string} path */
  function answers(path) {
    return noServer || !/^\/api\/(learn|puzzles)(\/|\?|$)/.test(new URL(path, location.href).pathname);
  }

  return {
    get active() { return state.active; },
    available: !!base,
    noServer, answers,
    start, api, pdn, stop, decorate, toggle, wanted,
  };
})();
