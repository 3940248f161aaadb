// The damasi page. It holds no rules of the game and decides nothing: legal moves (with
// their routes), positions, clocks, the engine's moves and outcomes all come from the server's
// JSON API (docs/web-api.md), which referees every saved game.
"use strict";

const FILES = "abcdefgh";
const $ = (id) => document.getElementById(id);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const STEP_MS = window.matchMedia("(prefers-reduced-motion: reduce)").matches ? 0 : 180;

// ---------------------------------------------------------------------------------------------
// Text

let lang = localStorage.getItem("damasi.lang") || ((navigator.language || "en").startsWith("tr") ? "tr" : "en");

function t(key, vars) {
  let s = (I18N[lang] && I18N[lang][key]) || I18N.en[key] || key;
  for (const [k, v] of Object.entries(vars || {})) s = s.split("{" + k + "}").join(v);
  return s;
}
function hasText(key) { return Object.prototype.hasOwnProperty.call(I18N.en, key); }
function sideName(side) { return t(side === "white" || side === "W" ? "white" : "black"); }

// An outcome in the reader's language, from its code (`white:resignation`, `draw:agreement`,
// `aborted`); the server's English sentence only for a code this page does not know.
function outcomeText(outcome) {
  const o = typeof outcome === "string" ? { code: outcome } : outcome || {};
  const code = o.code || "";
  if (code === "aborted") return t("out:aborted");
  const [who, reason] = code.split(":");
  const key = (who === "draw" ? "draw:" : "win:") + reason;
  if (!reason || !["white", "black", "draw"].includes(who) || !hasText(key)) return o.reason || code;
  return t(key, { winner: sideName(who), loser: sideName(who === "white" ? "black" : "white") });
}

function applyI18n() {
  document.documentElement.lang = lang;
  document.querySelectorAll("[data-i18n]").forEach((el) => { el.textContent = t(el.dataset.i18n); });
  $("move-input").placeholder = "d3-d4";
  for (const b of document.querySelectorAll(".langs button")) b.setAttribute("aria-pressed", String(b.dataset.lang === lang));
}

function announce(text) {
  const el = $("announce");
  el.textContent = "";
  setTimeout(() => { el.textContent = text; }, 30);
}

let toastTimer = null;
function toast(text, ms = 3500) {
  const el = $("toast");
  el.onclick = () => { el.hidden = true; };
  el.textContent = text;
  el.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { el.hidden = true; }, ms);
}

// ---------------------------------------------------------------------------------------------
// Server

// A refusal or fault the server answered with: its status, machine code and the values its
// message names (see docs/web-api.md). The English message is kept only as a last resort.
class ApiError extends Error {
  constructor(status, body) {
    body = body && typeof body === "object" ? body : {};
    super(typeof body.error === "string" ? body.error : "HTTP " + status);
    this.status = status;
    this.code = typeof body.code === "string" ? body.code : status >= 500 ? "internal" : "";
    this.params = body.params && typeof body.params === "object" ? body.params : {};
    this.legal = Array.isArray(body.legal) ? body.legal : null;
  }
}

// No answer at all: the server is down or restarting, or the network is gone.
class NetworkError extends Error {}

async function api(method, path, body, signal) {
  // No server (or the reader's choice): the same API, answered in this page (local.js).
  if (Local.active) return Plies.take(await Local.api(method, path, body, signal), game);
  const opts = { method, headers: {}, signal };
  if (body !== undefined) {
    opts.headers["content-type"] = "application/json";
    opts.body = JSON.stringify(body);
  }
  let res, text;
  try {
    res = await fetch(path, opts);
    text = await res.text();
  } catch (e) {
    if (e.name === "AbortError") throw e;
    throw new NetworkError(e.message);
  }
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch (_) { data = { error: text }; }
  if (!res.ok) throw new ApiError(res.status, data);
  // A game's plies come in pages: spread them over the whole game (plies.js).
  return Plies.take(data, game);
}

// An error in the reader's language: by the server's code and params, never by its sentence.
function errorText(e) {
  if (e instanceof NetworkError) return t("err:network");
  if (!(e instanceof ApiError)) return String((e && e.message) || e);
  const list = (e.legal || []).join("  ");
  switch (e.code) {
    case "illegal-move": {
      const head = t("illegalMove") + (e.typed ? `: “${e.typed}”` : "");
      return head + ". " + (e.legal && e.legal.length ? t("legalAre", { list }) : t("noMoves"));
    }
    case "ambiguous-move": return t("err:ambiguous-move", { text: e.typed || "", list });
    case "game-over": return t("err:game-over", { outcome: outcomeText(e.params.outcome || "") });
    default:
      if (e.code && hasText("err:" + e.code)) return t("err:" + e.code, { detail: e.message });
      return t("err:unknown", { detail: e.message });
  }
}

function showError(e) {
  if (e && e.name === "AbortError") return;
  toast(errorText(e), e instanceof ApiError && e.legal ? 7000 : 4500);
}

// ---------------------------------------------------------------------------------------------
// Positions (display only: FEN lists where pieces stand)

function parseFen(fen) {
  const out = { side: "W", pieces: {} };
  const parts = (fen || "").split(":");
  if (parts.length !== 3) return out;
  out.side = parts[0].trim().toUpperCase();
  for (const field of parts.slice(1)) {
    const color = field.trim()[0].toLowerCase();
    for (let item of field.trim().slice(1).split(",")) {
      item = item.trim();
      if (!item) continue;
      const king = item[0] === "K";
      let name = king ? item.slice(1) : item;
      if (/^\d+$/.test(name)) { const n = Number(name) - 1; name = FILES[n % 8] + (Math.floor(n / 8) + 1); }
      out.pieces[name] = { c: color, k: king };
    }
  }
  return out;
}

function fenOf(pieces, side) {
  const list = (c) => Object.keys(pieces).filter((s) => pieces[s].c === c)
    .sort((a, b) => sqIndex(a) - sqIndex(b))
    .map((s) => (pieces[s].k ? "K" : "") + s).join(",");
  return `${side}:W${list("w")}:B${list("b")}`;
}
function sqIndex(s) { return (Number(s[1]) - 1) * 8 + FILES.indexOf(s[0]); }

// ---------------------------------------------------------------------------------------------
// The board

const board = {
  el: null, flipped: false, pos: { side: "W", pieces: {} }, pieceEls: {},
  moves: [], onMove: null, sel: null, path: [], last: null, hint: null, cursor: "d4",
  editTool: null, onEdit: null, drag: null,

  init() {
    this.el = $("board");
    this.el.addEventListener("pointerdown", (e) => this.pointerDown(e));
    this.el.addEventListener("keydown", (e) => this.keyDown(e));
    this.el.addEventListener("focus", () => this.drawMarks());
    this.el.addEventListener("blur", () => this.drawMarks());
    this.build();
  },

  coords(sq) {
    const f = FILES.indexOf(sq[0]), r = Number(sq[1]) - 1;
    return this.flipped ? { col: 7 - f, row: r } : { col: f, row: 7 - r };
  },
  squareAt(col, row) {
    const f = this.flipped ? 7 - col : col, r = this.flipped ? row : 7 - row;
    return FILES[f] + (r + 1);
  },

  build() {
    this.el.innerHTML = "";
    for (let row = 0; row < 8; row++) {
      for (let col = 0; col < 8; col++) {
        const sq = this.squareAt(col, row);
        const d = document.createElement("div");
        const f = FILES.indexOf(sq[0]), r = Number(sq[1]) - 1;
        d.className = "sq" + ((f + r) % 2 === 0 ? " dk" : "");
        d.dataset.sq = sq;
        if (row === 7) { const c = document.createElement("span"); c.className = "coord file"; c.textContent = sq[0]; d.appendChild(c); }
        if (col === 0) { const c = document.createElement("span"); c.className = "coord rank"; c.textContent = sq[1]; d.appendChild(c); }
        this.el.appendChild(d);
      }
    }
    this.svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
    this.svg.setAttribute("class", "paths");
    this.svg.setAttribute("viewBox", "0 0 8 8");
    this.el.appendChild(this.svg);
    this.pieceEls = {};
    this.drawPieces();
  },

  sqEl(sq) { return this.el.querySelector(`.sq[data-sq="${sq}"]`); },

  setFlipped(f) { this.flipped = f; this.build(); },

  set(fen, opts = {}) {
    this.pos = parseFen(fen);
    this.moves = opts.moves || [];
    this.onMove = opts.onMove || null;
    this.last = opts.last || null;
    this.sel = null; this.path = [];
    this.drawPieces();
  },

  place(el, sq) {
    const { col, row } = this.coords(sq);
    el.style.left = col * 12.5 + "%";
    el.style.top = row * 12.5 + "%";
  },

  drawPieces() {
    for (const el of Object.values(this.pieceEls)) el.remove();
    this.pieceEls = {};
    for (const [sq, p] of Object.entries(this.pos.pieces)) {
      const el = document.createElement("div");
      el.className = `piece ${p.c}${p.k ? " k" : ""}`;
      el.dataset.sq = sq;
      this.place(el, sq);
      this.el.appendChild(el);
      this.pieceEls[sq] = el;
    }
    this.drawMarks();
  },

  pieceLabel(sq) {
    const p = this.pos.pieces[sq];
    if (!p) return sq;
    return `${sq}, ${sideName(p.c === "w" ? "white" : "black")} ${p.k ? (lang === "tr" ? "dama" : "king") : (lang === "tr" ? "taş" : "man")}`;
  },

  movableFroms() { return new Set(this.moves.map((m) => m.from)); },

  candidates() {
    if (!this.sel) return [];
    return this.moves.filter((m) => m.from === this.sel && this.path.every((s, i) => m.route[i] === s));
  },

  drawMarks() {
    const cands = this.candidates();
    const next = new Set(), finals = new Set(), onPath = new Set(this.path);
    for (const m of cands) {
      if (m.route.length > this.path.length) {
        next.add(m.route[this.path.length]);
        if (m.route.length === this.path.length + 1) finals.add(m.route[this.path.length]);
      }
    }
    const movable = this.movableFroms();
    for (const d of this.el.querySelectorAll(".sq")) {
      const sq = d.dataset.sq;
      d.classList.toggle("sel", sq === this.sel);
      d.classList.toggle("target", next.has(sq));
      d.classList.toggle("final", finals.has(sq));
      d.classList.toggle("onpath", onPath.has(sq));
      d.classList.toggle("last", !!this.last && this.last.includes(sq) && sq !== this.sel);
      d.classList.toggle("hintsq", !!this.hint && this.hint.includes(sq));
      d.classList.toggle("kbd", this.el.matches(":focus-visible") && sq === this.cursor);
    }
    const threatened = new Set();
    for (const m of cands) for (const v of m.captures.slice(this.path.length)) threatened.add(v);
    for (const [sq, el] of Object.entries(this.pieceEls)) {
      el.classList.toggle("movable", movable.has(sq) && !this.editTool);
      el.classList.toggle("threat", threatened.has(sq));
      el.classList.remove("captured");
    }
    // Pieces already jumped on the way so far look taken; the moving piece stands where it is.
    if (this.sel && this.path.length && cands.length) {
      const jumped = cands[0].captures.slice(0, this.path.length);
      for (const v of jumped) if (this.pieceEls[v]) this.pieceEls[v].classList.add("captured");
      if (this.pieceEls[this.sel]) this.place(this.pieceEls[this.sel], this.path[this.path.length - 1]);
    } else if (this.sel && this.pieceEls[this.sel] && !this.drag) {
      this.place(this.pieceEls[this.sel], this.sel);
    }
    this.drawPaths(cands);
  },

  drawPaths(cands) {
    const svg = this.svg;
    svg.innerHTML = "";
    const multi = cands.filter((m) => m.route.length > 1);
    const lines = [];
    for (const m of multi) lines.push({ pts: [m.from, ...m.route], color: "rgba(40,90,40,.55)" });
    if (this.hintMove) lines.push({ pts: [this.hintMove.from, ...this.hintMove.route], color: "rgba(40,90,200,.7)" });
    for (const l of lines) {
      const pts = l.pts.map((s) => { const c = this.coords(s); return `${c.col + 0.5},${c.row + 0.5}`; }).join(" ");
      const pl = document.createElementNS("http://www.w3.org/2000/svg", "polyline");
      pl.setAttribute("points", pts);
      pl.setAttribute("fill", "none");
      pl.setAttribute("stroke", l.color);
      pl.setAttribute("stroke-width", "0.09");
      pl.setAttribute("stroke-linecap", "round");
      pl.setAttribute("stroke-linejoin", "round");
      svg.appendChild(pl);
    }
  },

  reject(message) {
    this.el.classList.remove("shake");
    void this.el.offsetWidth;
    this.el.classList.add("shake");
    if (message) { setStatusNote(message); announce(message); }
  },

  select(sq) { this.sel = sq; this.path = []; this.drawMarks(); },
  clearSel() {
    const had = this.sel;
    this.sel = null; this.path = [];
    if (had && this.pieceEls[had]) this.place(this.pieceEls[had], had);
    this.drawMarks();
  },

  // One click (or a drop, or Enter) on a square.
  activate(sq) {
    if (this.editTool) { if (this.onEdit) this.onEdit(sq); return; }
    if (!this.onMove) return;
    const movable = this.movableFroms();
    if (this.sel) {
      const cands = this.candidates();
      const nextHits = cands.filter((m) => m.route[this.path.length] === sq);
      if (nextHits.length) {
        this.path.push(sq);
        const done = nextHits.filter((m) => m.route.length === this.path.length);
        if (done.length && done.length === nextHits.length) return this.commit(done[0]);
        setStatusNote(t("chooseNext"));
        this.drawMarks();
        return;
      }
      const byEnd = cands.filter((m) => m.to === sq);
      if (byEnd.length === 1) return this.commit(byEnd[0]);
      if (sq === this.sel && this.path.length === 0) return this.clearSel();
      if (movable.has(sq) && this.path.length === 0) return this.select(sq);
      if (this.path.length) { this.clearSel(); return; }
      this.clearSel();
      return;
    }
    if (movable.has(sq)) return this.select(sq);
    const p = this.pos.pieces[sq];
    if (p && p.c === this.pos.side.toLowerCase()) {
      const forced = this.moves.length && this.moves.every((m) => m.captures.length > 0);
      this.reject(forced ? t("mustCapture") : t("cannotMove"));
    }
  },

  commit(m) {
    const fn = this.onMove;
    const dragged = this.dropping;
    this.sel = null; this.path = [];
    this.drawMarks();
    if (fn) fn(m, { dragged });
  },

  eventSquare(e) {
    const r = this.el.getBoundingClientRect();
    const bw = (r.width - this.el.clientWidth) / 2;
    const x = e.clientX - r.left - bw, y = e.clientY - r.top - bw;
    const size = this.el.clientWidth / 8;
    const col = Math.floor(x / size), row = Math.floor(y / size);
    if (col < 0 || col > 7 || row < 0 || row > 7) return null;
    return this.squareAt(col, row);
  },

  pointerDown(e) {
    if (e.button !== 0) return;
    const sq = this.eventSquare(e);
    if (!sq) return;
    this.cursor = sq;
    const canDrag = !this.editTool && this.onMove && this.movableFroms().has(sq) && (!this.sel || this.path.length === 0);
    if (!canDrag) { this.activate(sq); return; }
    e.preventDefault();
    const wasSelected = this.sel === sq;
    this.select(sq);
    const el = this.pieceEls[sq];
    const start = { x: e.clientX, y: e.clientY };
    let moved = false;
    const size = this.el.clientWidth / 8;
    const r0 = this.el.getBoundingClientRect();
    const bw = (r0.width - this.el.clientWidth) / 2;
    const move = (ev) => {
      if (!moved && Math.hypot(ev.clientX - start.x, ev.clientY - start.y) < 5) return;
      moved = true;
      this.drag = sq;
      el.classList.add("dragging");
      el.style.left = (ev.clientX - r0.left - bw - size / 2) + "px";
      el.style.top = (ev.clientY - r0.top - bw - size / 2) + "px";
    };
    const up = (ev) => {
      window.removeEventListener("pointermove", move);
      window.removeEventListener("pointerup", up);
      el.classList.remove("dragging");
      this.drag = null;
      this.place(el, sq);
      if (!moved) { if (wasSelected) this.clearSel(); return; }
      const target = this.eventSquare(ev);
      if (!target || target === sq) { this.drawMarks(); return; }
      this.dropping = true;
      try { this.activate(target); } finally { this.dropping = false; }
    };
    window.addEventListener("pointermove", move);
    window.addEventListener("pointerup", up);
  },

  keyDown(e) {
    const c = this.coords(this.cursor);
    const moves = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
    if (moves[e.key]) {
      const [dc, dr] = moves[e.key];
      const col = Math.min(7, Math.max(0, c.col + dc)), row = Math.min(7, Math.max(0, c.row + dr));
      this.cursor = this.squareAt(col, row);
      const c2 = this.candidates();
      const isTarget = c2.some((m) => m.route[this.path.length] === this.cursor);
      announce(this.pieceLabel(this.cursor) + (isTarget ? (lang === "tr" ? ", hedef" : ", target") : ""));
      this.drawMarks();
      e.preventDefault();
      e.stopPropagation();
    } else if (e.key === "Enter" || e.key === " ") {
      this.activate(this.cursor);
      e.preventDefault();
      e.stopPropagation();
    } else if (e.key === "Escape") {
      this.clearSel();
    }
  },

  // Plays `m` on the shown position with a step for each landing square (at once after a
  // drag). With `nextFen` the board then shows that position; without, it stays as moved
  // until the caller sets the next position.
  async animate(m, nextFen, instant = false) {
    this.sel = null; this.path = []; this.hint = null; this.hintMove = null;
    this.drawMarks();
    const el = this.pieceEls[m.from];
    const steps = instant ? 0 : STEP_MS;
    if (el) {
      el.style.zIndex = 15;
      if (!steps) el.style.transition = "none";
      for (let i = 0; i < m.route.length; i++) {
        this.place(el, m.route[i]);
        const victim = m.captures[i];
        if (steps) await sleep(steps);
        if (victim && this.pieceEls[victim]) this.pieceEls[victim].classList.add("gone");
      }
      if (steps) await sleep(60);
    }
    if (nextFen) {
      this.pos = parseFen(nextFen);
      this.drawPieces();
    }
  },
};

// ---------------------------------------------------------------------------------------------
// Play. The server referees: it keeps the game, runs the clocks, plays the engine's moves and
// decides the outcome. The page shows the game the server last described, sends what the
// person wants to do, and follows the game by long polling while it goes on.

let game = null;        // the game as the server last described it
let gameAt = 0;         // performance.now() when `game` arrived: the clocks count on from there
let viewPly = null;     // null: the live position; else the ply index shown (0 = start)
let acting = 0;         // the person's requests under way (a move, a take-back, ...)
let actionSeq = 0;      // counts the person's finished requests
let animating = false;  // a move of the followed game is being animated
let offline = false;    // the server cannot be reached: the follower keeps retrying
let statusNote = "";

function other(side) { return side === "white" ? "black" : "white"; }
function playerOf(side) { return game ? game[side] : { kind: "human" }; }
function isEngine(side) { return playerOf(side).kind === "engine"; }
function vsEngine() { return !!game && (isEngine("white") || isEngine("black")); }
// The side a person's request speaks for: against the engine the person's own side; between
// two people on one screen the side to move.
function humanSide() {
  if (!game) return "white";
  if (vsEngine()) return isEngine("white") ? "black" : "white";
  return game.side;
}
function live() { return !!game && !game.outcome.over; }
function engineState() { return (game && game.engine && game.engine.state) || "idle"; }
function engineToMove() { return live() && isEngine(game.side); }
function drawInfo() { return (game && game.draw) || { offers: {}, pending: null }; }
function notation() { return $("notation").value; }
function moveText(m) { return notation() === "captured" ? m.captured : m.landing; }
// Who played ply `i` (0-based) of the game.
function moverOf(i) {
  const first = parseFen(game.start_fen).side === "B" ? "black" : "white";
  return i % 2 === 0 ? first : other(first);
}
function hasOwnMove(side) { return game.plies.some((_, i) => moverOf(i) === side); }

function setStatusNote(s) { statusNote = s; renderStatus(); }

// A game as the server describes it; anything else (a proxy's page, a truncated answer) is
// not taken for one.
function isGame(g) {
  return !!g && typeof g === "object" && Number.isInteger(g.id) && Array.isArray(g.plies)
    && typeof g.fen === "string" && !!g.outcome && Array.isArray(g.legal);
}

// ----- clocks: the server's figures, counted down here only for the running side

function clockLeft(side) {
  const c = game && game.clock;
  if (!c) return null;
  let ms = Number(c[side + "_ms"]) || 0;
  if (c.running === side && live()) ms -= performance.now() - gameAt;
  return Math.max(0, ms);
}

function fmtClock(ms) {
  ms = Math.max(0, ms);
  const s = Math.ceil(ms / 1000);
  const m = Math.floor(s / 60);
  if (ms < 10000) return `${m}:${String(s % 60).padStart(2, "0")}.${Math.floor((ms % 1000) / 100)}`;
  return `${m}:${String(s % 60).padStart(2, "0")}`;
}

let flagAskedAt = -Infinity;

function tick() {
  if (mode === "play") renderClocks();
  const running = live() && game.clock && game.clock.running;
  // The page never decides a loss on time: at zero it asks the server, which knows better.
  if (running && clockLeft(running) === 0 && performance.now() - flagAskedAt > 2000) askFlag();
}

async function askFlag() {
  flagAskedAt = performance.now();
  const id = game.id;
  try {
    accept(await api("POST", `/api/games/${id}/flag`));
  } catch (e) {
    // `time-not-out`: the server's clock still runs; take its figures.
    await refresh(id);
  }
}

// ----- following the game: the engine's moves, the server's flag, another tab's actions

let follower = null;    // { id, ctrl }: the loop that follows the shown game
let engineKicked = "";  // the game state for which the page asked the engine to start

function follow() {
  if (!live()) { stopFollowing(); return; }
  if (follower && follower.id === game.id) return;
  stopFollowing();
  const f = { id: game.id, ctrl: new AbortController() };
  follower = f;
  followLoop(f).finally(() => { if (follower === f) follower = null; });
}

function stopFollowing() {
  if (follower) follower.ctrl.abort();
  follower = null;
  setOffline(false);
}

function setOffline(v) {
  if (offline === v) return;
  offline = v;
  if (game) renderPlay();
}

// A failure worth retrying: no answer at all, or the server's own fault (a restart, a busy
// engine). A 4xx is an answer.
function transient(e) { return e instanceof NetworkError || (e instanceof ApiError && e.status >= 500); }

async function followLoop(f) {
  let failures = 0;
  while (follower === f && live() && game.id === f.id) {
    const started = performance.now();
    const seq = actionSeq;
    try {
      const g = await nextState(f);
      failures = 0;
      setOffline(false);
      await settled();
      if (follower !== f) return;
      // A state fetched while the person acted is stale unless it is a newer version; one
      // fetched while nothing happened here is the server's word, even if its version went
      // back (a server that lost its numbering must not leave the page stuck).
      if (actionSeq === seq) await advance(g, 0, true);
      else if (newer(g)) await advance(g);
      // A server that answers at once (no long poll) is asked again only after a pause.
      if (performance.now() - started < 300) await sleep(1000);
    } catch (e) {
      if (e.name === "AbortError" || follower !== f) return;
      failures++;
      if (transient(e)) setOffline(true);
      else if (e.status === 404) { showError(e); return; }
      else console.error(e);
      await sleep(Math.min(5000, 400 * 2 ** Math.min(failures, 4)));
    }
  }
}

// The next state of the game: when the engine is to move but not thinking (a game just
// created or loaded), ask it to start once; otherwise wait for the next version.
async function nextState(f) {
  const key = [game.id, game.version, game.plies.length].join(":");
  if (engineToMove() && engineState() === "idle" && engineKicked !== key) {
    engineKicked = key;
    const res = await api("POST", `/api/games/${f.id}/engine`, undefined, f.ctrl.signal);
    return res && res.game ? res.game : res;
  }
  const wait = Number.isInteger(game.version) ? `?wait_version=${game.version}` : "";
  return api("GET", `/api/games/${f.id}${wait}`, undefined, f.ctrl.signal);
}

// Waits until the person's requests and the animations are done, so that a state the
// follower fetched meanwhile is compared with the newest one.
async function settled() {
  while (acting || animating) await sleep(50);
}

// ----- taking in a game the server sent

function newer(g) {
  return isGame(g) && !!game && g.id === game.id && Number.isInteger(g.version) && g.version > game.version;
}

// Whether `g` changes what the page shows beyond the clocks.
function differs(g) {
  if (!Number.isInteger(g.version) || !Number.isInteger(game.version)) return true;
  if (g.version !== game.version) return true;
  const e = (x) => JSON.stringify([x.engine, x.draw, x.outcome, x.clock && x.clock.running]);
  return e(g) !== e(game);
}

// Takes `g` if it is the shown game and (unless `force`) not older than what the page has;
// returns whether the page was redrawn.
function accept(g, force = false) {
  if (!isGame(g) || !game || g.id !== game.id) return false;
  if (!force && Number.isInteger(g.version) && Number.isInteger(game.version) && g.version < game.version) return false;
  if (!differs(g)) {
    game = g;
    gameAt = performance.now();
    renderClocks();
    return false;
  }
  setGame(g);
  return true;
}

// The plies `g` adds to the shown game (a move and perhaps the engine's reply), if it only adds.
function addedPlies(g) {
  const n = game.plies.length;
  if (g.plies.length <= n || g.plies.length > n + 2) return 0;
  if (n > 0 && g.plies[n - 1].fen !== game.plies[n - 1].fen) return 0;
  return g.plies.length - n;
}

// Shows `g`, animating the moves it adds when the live position is on the board; the first
// `skip` of them are already animated.
async function advance(g, skip = 0, force = false) {
  if (!isGame(g) || !game || g.id !== game.id) return;
  const from = game.plies.length;
  const added = differs(g) ? addedPlies(g) : 0;
  if (added && mode === "play" && viewPly === null) {
    animating = true;
    try {
      for (let k = from + skip; k < from + added; k++) {
        // After a move animated without its position (the person's own), set that position.
        if (k > from) { board.pos = parseFen(g.plies[k - 1].fen); board.drawPieces(); }
        await board.animate(g.plies[k].move, g.plies[k].fen);
      }
    } finally { animating = false; }
  }
  if (!game || g.id !== game.id || !accept(g, force)) return;
  for (let k = from; k < from + added; k++) announceMove(k);
  if (g.outcome.over) announce(outcomeText(g.outcome));
}

function announceMove(k) {
  const m = game.plies[k].move;
  const side = moverOf(k);
  announce(isEngine(side) ? t("enginePlays", { move: moveText(m) }) : t("played", { side: sideName(side), move: moveText(m) }));
}

function setGame(g) {
  game = g;
  gameAt = performance.now();
  board.hint = null;
  board.hintMove = null;
  localStorage.setItem("damasi.game", String(g.id));
  viewPly = null;
  if (mode === "play") statusNote = "";
  renderPlay();
  follow();
}

// ----- rendering

let bannerShownFor = null;
function renderBanner() {
  const el = $("banner");
  const over = mode === "play" && game && game.outcome.over && viewPly === null;
  const key = over ? game.id + ":" + game.plies.length + ":" + (game.outcome.code || game.outcome.reason) : null;
  if (!over || bannerShownFor === "dismissed:" + key) { el.hidden = true; return; }
  bannerShownFor = key;
  el.innerHTML = "";
  const w = game.outcome.winner;
  el.append(w ? t(w === "white" ? "whiteWins" : "blackWins") : t("drawn"));
  const why = document.createElement("small");
  why.textContent = outcomeText(game.outcome) + " · " + game.outcome.result;
  el.appendChild(why);
  el.hidden = false;
  el.onclick = () => { bannerShownFor = "dismissed:" + key; el.hidden = true; };
}

// What the status line says about the live game. It names a person's move only when the
// server says it is that person's move and the page can reach the server.
function liveStatus() {
  if (offline) return { text: t("reconnecting"), cls: "offline" };
  if (engineToMove()) {
    if (engineState() === "failed") return { text: t("engineFailed", { error: game.engine.error || "?" }), cls: "failed" };
    return { text: t("thinking"), cls: "thinking" };
  }
  const pending = drawInfo().pending;
  if (pending && !vsEngine()) return { text: t("drawWaits", { side: sideName(other(pending)) }), cls: "" };
  const base = vsEngine() ? t("yourMove", { side: sideName(game.side) }) : t("toMove", { side: sideName(game.side) });
  const note = statusNote || (game.forced_capture ? t("mustCapture") : "");
  return { text: note ? base + ". " + note : base, cls: "" };
}

function renderStatus() {
  renderBanner();
  const el = $("status");
  el.classList.remove("over", "thinking", "offline", "failed");
  if (mode === "study") { el.textContent = statusNote; return; }
  if (!game) { el.textContent = ""; return; }
  let s;
  if (game.outcome.over) s = { text: outcomeText(game.outcome) + " (" + game.outcome.result + ")", cls: "over" };
  else if (viewPly !== null) s = { text: t("viewing", { n: viewPly }), cls: "" };
  else s = liveStatus();
  el.textContent = s.text;
  if (s.cls) el.classList.add(s.cls);
}

function playerLabel(side) {
  const p = playerOf(side);
  const who = p.kind === "engine" ? t("engineLevel", { n: p.level }) : (vsEngine() ? t("you") : t("person"));
  return `<span class="dot ${side}"></span>${sideName(side)} · ${who}`;
}

function topSide() { return board.flipped ? "white" : "black"; }

function renderPlayers() {
  const sides = [["top", topSide()], ["bottom", other(topSide())]];
  for (const [pos, side] of sides) {
    const name = $("name-" + pos);
    const shown = mode === "play" && !!game;
    name.innerHTML = shown ? playerLabel(side) : "";
    name.classList.toggle("tomove", shown && live() && game.side === side);
  }
  renderClocks();
}

function renderClocks() {
  for (const [id, side] of [["clock-top", topSide()], ["clock-bottom", other(topSide())]]) {
    const el = $(id);
    const ms = mode === "play" ? clockLeft(side) : null;
    el.hidden = ms === null;
    if (ms === null) continue;
    el.textContent = fmtClock(ms);
    el.dataset.ms = String(Math.round(ms));
    el.classList.toggle("running", live() && game.clock.running === side);
    el.classList.toggle("low", ms < 20000);
    el.setAttribute("aria-label", `${sideName(side)} ${fmtClock(ms)}`);
  }
}

function shownFen() {
  if (!game) return "startpos";
  if (viewPly === null || viewPly === game.plies.length) return game.fen;
  return viewPly === 0 ? game.start_fen : game.plies[viewPly - 1].fen;
}

function lastMoveSquares(ply) {
  if (!game || ply <= 0) return null;
  const m = game.plies[ply - 1].move;
  return [m.from, ...m.route];
}

// Whether the person to move may act now (move, hint, offer a draw).
function personToMove() {
  return live() && viewPly === null && !acting && !offline && !isEngine(game.side)
    && !(drawInfo().pending && !vsEngine());
}

function renderPlayBoard() {
  if (!game) return;
  const ply = viewPly === null ? game.plies.length : viewPly;
  const mine = personToMove();
  board.set(shownFen(), {
    moves: mine ? game.legal : [],
    onMove: mine ? humanMove : null,
    last: lastMoveSquares(ply),
  });
}

// `onEarlier(i)`, if given, loads the missing plies before ply index `i` (a long game's
// earlier pages): a button stands where they would be.
function renderMoveList(listEl, plies, startFen, current, onPick, result, onEarlier) {
  listEl.innerHTML = "";
  const blackFirst = parseFen(startFen).side === "B";
  let li = null;
  let last = -1;
  plies.forEach((p, i) => {
    const ply = i + (blackFirst ? 1 : 0);
    if (onEarlier && i !== last + 1) {
      const more = document.createElement("li");
      const b = document.createElement("button");
      b.type = "button";
      b.className = "earlier";
      b.textContent = t("earlierMoves");
      b.addEventListener("click", () => onEarlier(i - 1));
      more.appendChild(b);
      listEl.appendChild(more);
    }
    const gap = i !== last + 1;
    last = i;
    if (ply % 2 === 0 || li === null || gap) {
      li = document.createElement("li");
      const num = document.createElement("span");
      num.className = "num";
      num.textContent = Math.floor(ply / 2) + 1 + ".";
      li.appendChild(num);
      if (ply % 2 === 1) li.appendChild(document.createElement("span"));
      listEl.appendChild(li);
    }
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = moveText(p.move);
    b.dataset.ply = i + 1;
    if (current === i + 1) { b.classList.add("cur"); b.setAttribute("aria-current", "true"); }
    b.addEventListener("click", () => onPick(i + 1));
    li.appendChild(b);
  });
  if (result) {
    const r = document.createElement("li");
    r.innerHTML = `<span class="result"></span>`;
    r.firstChild.textContent = result;
    listEl.appendChild(r);
  }
  const cur = listEl.querySelector(".cur");
  if (cur) cur.scrollIntoView({ block: "nearest" });
}

// The buttons for the person's own side; take back is gone once the game has ended.
function renderButtons() {
  const going = live() && !acting && !offline;
  const me = humanSide();
  // Taking back while the engine thinks is allowed: the server stops the engine first.
  $("btn-takeback").hidden = !live();
  $("btn-takeback").disabled = !going || !hasOwnMove(takeBackSide());
  $("btn-hint").disabled = !personToMove();
  const left = (Number(drawInfo().max) || 2) - (Number(drawInfo().offers[me]) || 0);
  $("btn-draw").disabled = !personToMove() || left <= 0;
  $("btn-draw").title = t("offersLeft", { n: Math.max(0, left) });
  $("btn-resign").disabled = !going || (!vsEngine() && !!drawInfo().pending);
  $("move-input").disabled = !personToMove();
  $("btn-retry").hidden = !(mode === "play" && engineToMove() && engineState() === "failed" && !offline && viewPly === null);
  $("btn-retry").disabled = acting > 0;
  renderDrawAsk();
  Local.decorate(mode === "play" ? game : null);
}

// Between two people on one screen, a draw offer waits for the other person's answer here
// (also after a reload: the offer is part of the game).
function renderDrawAsk() {
  const pending = mode === "play" && live() && !vsEngine() ? drawInfo().pending : null;
  $("draw-ask").hidden = !pending;
  if (!pending) return;
  $("draw-ask-text").textContent = t("drawAsk", { side: sideName(pending), other: sideName(other(pending)) });
  $("draw-yes").disabled = $("draw-no").disabled = acting > 0 || offline;
}

function renderPlay() {
  if (!game) return;
  // The board belongs to whichever tab is shown; the game may change behind the Study tab.
  if (mode === "play" && !animating) renderPlayBoard();
  const current = viewPly === null ? game.plies.length : viewPly;
  renderMoveList($("movelist"), game.plies, game.start_fen, current, (n) => browse(n), game.outcome.over ? game.outcome.result : null, loadEarlier);
  renderButtons();
  $("btn-export-play").href = `/api/games/${game.id}/pdn`;
  $("btn-export-play").setAttribute("download", `damasi-game-${game.id}.pdn`);
  renderPlayers();
  renderStatus();
}

// Loads the page of a long game that ends with ply index `i`, then shows the list again.
async function loadEarlier(i) {
  const g = game;
  try {
    if (await Plies.load(g, i, (path) => api("GET", path)) && game === g) renderPlay();
  } catch (e) { showError(e); }
}

function browse(n) {
  if (!game) return;
  n = Math.max(0, Math.min(game.plies.length, n));
  // A ply of a long game not fetched yet: fetch its page first.
  if (n > 0 && !Plies.has(game, n - 1)) {
    const g = game;
    Plies.load(g, n - 1, (path) => api("GET", path))
      .then((ok) => { if (ok && game === g) browse(n); })
      .catch(showError);
    return;
  }
  viewPly = n === game.plies.length ? null : n;
  board.clearSel();
  renderPlay();
  if (n > 0) announce(moveText(game.plies[n - 1].move));
}

// ----- the person's actions

// Runs a request of the person: the follower waits for it, and the page is redrawn whatever
// the answer (an error is shown in the reader's language).
async function act(fn) {
  acting++;
  renderButtons();
  try {
    return await fn();
  } catch (e) {
    showError(e);
    // A refusal because the game moved on (the clock fell, another tab played): show it now.
    if (e instanceof ApiError && e.status === 409 && game) refresh(game.id);
    return null;
  } finally {
    acting--;
    actionSeq++;
    if (game) renderPlay();
  }
}

async function refresh(id) {
  try { accept(await api("GET", `/api/games/${id}`)); } catch (_) { /* the follower retries */ }
}

async function humanMove(m, opts = {}) {
  if (!game || acting) return;
  const id = game.id;
  await act(async () => {
    const animation = board.animate(m, null, opts.dragged);
    let g;
    try { g = await api("POST", `/api/games/${id}/move`, { move: m.landing }); } finally { await animation; }
    await advanceAfterAction(g, 1);
  });
}

async function typedMove(text) {
  if (!game || acting || viewPly !== null) return;
  const id = game.id;
  await act(async () => {
    try {
      const g = await api("POST", `/api/games/${id}/move`, { move: text });
      $("move-input").value = "";
      await advanceAfterAction(g, 0);
    } catch (e) {
      e.typed = text;   // an illegal move's message quotes what was typed
      throw e;
    }
  });
}

// Shows the game a person's action answered with; `skip` of its new plies are already
// animated. This runs inside the action, so the follower waits for it.
async function advanceAfterAction(g, skip) {
  if (isGame(g) && game && g.id === game.id) await advance(g, skip);
}

async function newGame(body) {
  try { await createGame(body); } catch (e) { showError(e); }
}

async function createGame(body) {
  // An unplayed game with the person to move is not worth keeping.
  if (game && game.plies.length === 0 && live() && !isEngine(game.side)) {
    await api("DELETE", `/api/games/${game.id}`).catch(() => {});
  }
  const g = await api("POST", "/api/games", body);
  stopFollowing();
  game = null;
  $("move-input").value = "";
  showNewGame(g);
  setMode("play");
}

function showNewGame(g) {
  if (!isGame(g)) throw new Error(t("err:bad-answer"));
  const flip = g.white.kind === "engine" && g.black.kind === "human";
  if (board.flipped !== flip) board.setFlipped(flip);
  setGame(g);
}

async function loadGame(id) {
  const g = await api("GET", `/api/games/${id}`);
  stopFollowing();
  game = null;
  showNewGame(g);
}

// The side whose last move a take-back removes: against the engine the person's own (the
// server takes back the engine's reply too); between two people the move just played.
function takeBackSide() { return vsEngine() ? humanSide() : other(game.side); }

async function takeBack() {
  if (!game || acting) return;
  const id = game.id, side = takeBackSide();
  await act(async () => accept(await api("POST", `/api/games/${id}/takeback`, { side })));
}

async function hint() {
  if (!game || acting) return;
  const id = game.id;
  setStatusNote(t("thinking"));
  await act(async () => {
    const a = await api("POST", `/api/games/${id}/hint`);
    statusNote = "";
    if (!a || !a.best || !game || game.id !== id) return;
    board.hint = [a.best.from, ...a.best.route];
    board.hintMove = a.best;
    board.drawMarks();
    const msg = t("hintIs", { move: moveText(a.best) });
    toast(msg);
    announce(msg);
  });
  statusNote = "";
  renderStatus();
}

async function offerDraw() {
  if (!personToMove()) return;
  const id = game.id, side = humanSide();
  if (!confirm(t("confirmDraw"))) return;
  await act(async () => {
    const res = await api("POST", `/api/games/${id}/draw`, { side });
    accept(res && res.game);
    if (res && res.pending) { announce($("draw-ask-text").textContent); return; }
    const msg = vsEngine() ? t(res && res.accepted ? "drawAccepted" : "drawDeclined") : "";
    if (msg) { toast(msg); announce(msg); }
  });
}

async function answerDraw(accepted) {
  const pending = drawInfo().pending;
  if (!live() || !pending || acting) return;
  const id = game.id, side = other(pending);
  await act(async () => {
    accept(await api("POST", `/api/games/${id}/draw/answer`, { side, accept: accepted }));
    if (!accepted) { const msg = t("drawDeclinedBy", { side: sideName(side) }); toast(msg); announce(msg); }
  });
}

async function resign() {
  if (!live() || acting) return;
  const id = game.id, side = humanSide();
  if (!confirm(t("confirmResign"))) return;
  await act(async () => accept(await api("POST", `/api/games/${id}/resign`, { side })));
  if (game && game.outcome.over) announce(outcomeText(game.outcome));
}

// After the engine failed (its clock is paused), the person asks it to try again.
async function retryEngine() {
  if (!engineToMove() || acting) return;
  const id = game.id;
  await act(async () => {
    const res = await api("POST", `/api/games/${id}/engine`);
    accept(res && res.game ? res.game : res);
  });
}

// ---------------------------------------------------------------------------------------------
// Study: free analysis of a position and a line played from it

const study = { start: null, line: [], idx: 0, legal: [], outcome: null, editing: false, edit: null, tool: "wm", seq: 0 };

function studyFen() { return study.idx === 0 ? study.start : study.line[study.idx - 1].fen; }
// The line's moves up to the shown position (the server counts them for repetitions).
function studyMoves() { return study.line.slice(0, study.idx).map((p) => p.move.landing); }

async function studyShow() {
  const fen = studyFen();
  $("fen-input").value = fen;
  const seq = ++study.seq;
  try {
    const v = await api("GET", "/api/moves?fen=" + encodeURIComponent(fen));
    if (seq !== study.seq) return;
    study.legal = v.moves;
    study.outcome = v.outcome;
    statusNote = v.outcome.over ? outcomeText(v.outcome) : t("toMove", { side: sideName(v.side) });
  } catch (e) { showError(e); study.legal = []; }
  if (mode !== "study" || study.editing) return;
  board.set(fen, {
    moves: study.legal,
    onMove: studyMove,
    last: study.idx > 0 ? [study.line[study.idx - 1].move.from, ...study.line[study.idx - 1].move.route] : null,
  });
  renderMoveList($("st-moves"), study.line, study.start, study.idx, (n) => { study.idx = n; studyShow(); }, null);
  renderStatus();
  analyze(fen, seq);
  tablebasePanel(fen, seq);
}

async function studyMove(m, opts = {}) {
  const fen = studyFen();
  try {
    const animation = board.animate(m, null, opts.dragged);
    const res = await api("POST", "/api/move", { fen: study.start, moves: studyMoves(), move: m.landing });
    await animation;
    study.line = study.line.slice(0, study.idx);
    study.line.push({ move: res.move, fen: res.position.fen });
    study.idx++;
    announce(moveText(res.move));
    studyShow();
  } catch (e) { showError(e); studyShow(); }
}

function scoreText(a) {
  if (a.mate !== null && a.mate !== undefined) return t(a.mate > 0 ? "mateIn" : "lossIn", { n: Math.abs(a.mate) });
  const s = a.white_score / 100;
  return (s > 0 ? "+" : "") + s.toFixed(2);
}

let analyzeTimer = null;
let analyzeAbort = null;
function analyze(fen, seq) {
  clearTimeout(analyzeTimer);
  // A search for a position no longer shown is stopped on the server when its request ends.
  if (analyzeAbort) analyzeAbort.abort();
  analyzeAbort = new AbortController();
  const signal = analyzeAbort.signal;
  $("an-score").textContent = "…";
  $("an-pv").textContent = "…";
  $("an-depth").textContent = "";
  if (study.outcome && study.outcome.over) {
    $("an-score").textContent = outcomeText(study.outcome);
    $("an-pv").textContent = "–";
    setEval(study.outcome.winner === "white" ? 1 : study.outcome.winner === "black" ? -1 : 0);
    return;
  }
  analyzeTimer = setTimeout(async () => {
    try {
      const a = await api("POST", "/api/analyze", { fen: study.start, moves: studyMoves(), move_time_ms: 1500 }, signal);
      if (seq !== study.seq) return;
      $("an-score").textContent = scoreText(a);
      $("an-pv").textContent = a.pv.join(" ") || "–";
      $("an-depth").textContent = a.depth ? "(" + t("depth", { n: a.depth }) + ")" : "";
      let frac;
      if (a.mate !== null && a.mate !== undefined) {
        const whiteWins = (a.mate > 0) === (parseFen(fen).side === "W");
        frac = whiteWins ? 1 : -1;
      } else frac = Math.tanh(a.white_score / 400);
      setEval(frac);
    } catch (e) {
      if (e.name === "AbortError") return;
      if (seq === study.seq) { $("an-score").textContent = "–"; $("an-pv").textContent = errorText(e); }
    }
  }, 150);
}

function setEval(frac) {
  // frac: -1 (Black winning) .. 1 (White winning)
  $("evalfill").style.height = (50 + 50 * frac).toFixed(1) + "%";
  $("evalbar").classList.toggle("flipped", board.flipped);
}

function startEditor() {
  study.editing = true;
  study.seq++;
  if (analyzeAbort) analyzeAbort.abort();
  $("an-score").textContent = "–"; $("an-pv").textContent = "–"; $("an-depth").textContent = "";
  study.edit = parseFen(studyFen());
  $("editor").hidden = false;
  $("ed-side").value = study.edit.side;
  board.editTool = study.tool;
  board.onEdit = editSquare;
  board.set(studyFen(), {});
  board.pos = study.edit;
  board.drawPieces();
  setStatusNote(t("editing"));
  updateEditorFen();
}

function editSquare(sq) {
  const tool = study.tool;
  const cur = study.edit.pieces[sq];
  if (tool === "x") delete study.edit.pieces[sq];
  else {
    const want = { c: tool[0], k: tool[1] === "k" };
    if (cur && cur.c === want.c && cur.k === want.k) delete study.edit.pieces[sq];
    else study.edit.pieces[sq] = want;
  }
  board.pos = study.edit;
  board.drawPieces();
  updateEditorFen();
}

function updateEditorFen() {
  study.edit.side = $("ed-side").value;
  $("fen-input").value = fenOf(study.edit.pieces, study.edit.side);
}

async function finishEditor() {
  const fen = fenOf(study.edit.pieces, $("ed-side").value);
  try {
    const v = await api("GET", "/api/moves?fen=" + encodeURIComponent(fen));
    study.editing = false;
    board.editTool = null;
    board.onEdit = null;
    $("editor").hidden = true;
    study.start = v.fen; study.line = []; study.idx = 0;
    studyShow();
  } catch (e) {
    toast(t("invalidPosition") + ": " + e.message, 6000);
  }
}

async function loadFen(fen) {
  try {
    const v = await api("GET", "/api/moves?fen=" + encodeURIComponent(fen));
    if (study.editing) { study.editing = false; board.editTool = null; $("editor").hidden = true; }
    study.start = v.fen; study.line = []; study.idx = 0;
    studyShow();
  } catch (e) { showError(e); }
}

async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
  } catch (_) {
    const ta = document.createElement("textarea");
    ta.value = text;
    document.body.appendChild(ta);
    ta.select();
    try { document.execCommand("copy"); } catch (_) { /* nothing more to try */ }
    ta.remove();
  }
  toast(t("copied"));
}

// ---------------------------------------------------------------------------------------------
// Saved games

// A saved game's ending in the reader's language: from its outcome code (the summary gives
// it as `outcome`, a code or an object with one), else the stored sentence.
function summaryOutcome(g) {
  const o = g.outcome;
  const code = typeof o === "string" ? o : (o && o.code) || g.code || "";
  return code ? outcomeText({ code, reason: g.reason }) : g.reason || "";
}

function playerShort(p) { return p.kind === "engine" ? t("engineLevel", { n: p.level }) : t("person"); }

async function renderGames() {
  const body = $("games-body");
  try {
    const list = await api("GET", "/api/games");
    body.innerHTML = "";
    if (!list.length) {
      body.innerHTML = `<tr><td colspan="7" class="muted"></td></tr>`;
      body.querySelector("td").textContent = t("noGames");
      return;
    }
    for (const g of list) {
      const tr = document.createElement("tr");
      tr.dataset.id = g.id;
      const cells = [String(g.id), g.updated.slice(0, 16), g.white_name || playerShort(g.white),
        g.black_name || playerShort(g.black), String(g.plies), g.result === "*" && !g.outcome ? t("inProgress") : g.result];
      for (const c of cells) { const td = document.createElement("td"); td.textContent = c; tr.appendChild(td); }
      tr.children[1].className = "nowrap";
      if (g.event) {
        const ev = document.createElement("div");
        ev.className = "muted small";
        ev.textContent = g.event;
        tr.children[2].appendChild(ev);
      }
      const why = summaryOutcome(g);
      if (why) {
        const el = document.createElement("div");
        el.className = "muted small";
        el.textContent = why;
        tr.children[5].appendChild(el);
      }
      const acts = document.createElement("td");
      const open = document.createElement("button");
      open.textContent = t("resume");
      open.className = "resume";
      open.addEventListener("click", async () => {
        try { await loadGame(g.id); setMode("play"); } catch (e) { showError(e); }
      });
      const pdn = document.createElement("a");
      pdn.className = "button";
      pdn.textContent = "PDN";
      pdn.href = `/api/games/${g.id}/pdn`;
      pdn.setAttribute("download", `damasi-game-${g.id}.pdn`);
      const del = document.createElement("button");
      del.textContent = t("del");
      del.addEventListener("click", async () => {
        if (!confirm(t("confirmDelete", { n: g.id }))) return;
        try { await api("DELETE", `/api/games/${g.id}`); renderGames(); } catch (e) { showError(e); }
      });
      const box = document.createElement("div");
      box.className = "acts";
      box.append(open, pdn, del);
      acts.appendChild(box);
      tr.appendChild(acts);
      body.appendChild(tr);
    }
  } catch (e) { showError(e); }
}

// Every good game of the file is saved; each broken one is listed with its line.
async function importPdn(text) {
  try {
    const res = await api("POST", "/api/pdn/import", { pdn: text });
    const ids = Array.isArray(res && res.ids) ? res.ids : [];
    const errors = Array.isArray(res && res.errors) ? res.errors : [];
    const msg = t("imported", { n: ids.length }) + (errors.length ? ". " + t("importBroken", { n: errors.length }) : "");
    toast(msg, errors.length ? 7000 : 3500);
    announce(msg);
    showImportReport(ids.length, errors);
    if (ids.length) $("pdn-text").value = "";
    await renderGames();
  } catch (e) { showError(e); }
}

function showImportReport(imported, errors) {
  const box = $("pdn-report");
  box.hidden = false;
  $("pdn-report-head").textContent = t("imported", { n: imported }) + (errors.length ? ". " + t("importBroken", { n: errors.length }) : "");
  const list = $("pdn-report-list");
  list.innerHTML = "";
  for (const err of errors) {
    const li = document.createElement("li");
    li.textContent = t("importError", { game: err.game, line: err.line, message: err.message });
    list.appendChild(li);
  }
}

// ---------------------------------------------------------------------------------------------
// Modes, controls, keys

let mode = "play";

function setMode(m) {
  mode = m;
  if (m !== "study" && analyzeAbort) analyzeAbort.abort();
  for (const b of document.querySelectorAll(".tabs button")) b.setAttribute("aria-selected", String(b.dataset.mode === m));
  $("panel-play").hidden = m !== "play";
  $("panel-study").hidden = m !== "study";
  $("panel-games").hidden = m !== "games";
  $("evalbar").hidden = m !== "study";
  document.body.classList.toggle("games-mode", m === "games");
  statusNote = "";
  board.hint = null; board.hintMove = null;
  if (game) renderButtons();
  if (m === "study") {
    if (!study.start) study.start = game ? shownFen() : "W:Wa2,b2,c2,d2,e2,f2,g2,h2,a3,b3,c3,d3,e3,f3,g3,h3:Ba6,b6,c6,d6,e6,f6,g6,h6,a7,b7,c7,d7,e7,f7,g7,h7";
    renderPlayers();
    studyShow();
  } else if (m === "games") {
    renderGames();
  } else {
    board.editTool = null;
    renderPlay();
  }
}

function openNewDialog(fromStudy) {
  $("new-from-fen").checked = !!fromStudy;
  $("new-from-fen").parentElement.hidden = !study.start;
  const dlg = $("new-dialog");
  dlg.returnValue = "";
  dlg.showModal();
}

function newGameBody() {
  const opp = document.querySelector('input[name="opp"]:checked').value;
  const level = Number($("new-level").value);
  let color = $("new-color").value;
  if (color === "random") color = Math.random() < 0.5 ? "white" : "black";
  const body = {};
  if (opp === "engine") {
    body.white = color === "white" ? { kind: "human" } : { kind: "engine", level };
    body.black = color === "black" ? { kind: "human" } : { kind: "engine", level };
  } else {
    body.white = { kind: "human" };
    body.black = { kind: "human" };
  }
  body.rules = $("new-rules").value;
  const tc = $("new-time").value;
  if (tc) { const [mins, inc] = tc.split("+").map(Number); body.clock = { minutes: mins, increment_s: inc }; }
  if ($("new-from-fen").checked && study.start) body.fen = studyFen();
  localStorage.setItem("damasi.new", JSON.stringify({ opp, level, color: $("new-color").value, tc }));
  return body;
}

function restoreNewDefaults() {
  try {
    const d = JSON.parse(localStorage.getItem("damasi.new") || "null");
    if (!d) return;
    for (const r of document.querySelectorAll('input[name="opp"]')) r.checked = r.value === d.opp;
    $("new-level").value = d.level; $("new-level-out").textContent = d.level;
    $("new-color").value = d.color; $("new-time").value = d.tc;
    $("engine-opts").disabled = d.opp !== "engine";
  } catch (_) { /* defaults stay */ }
}

function wire() {
  for (const b of document.querySelectorAll(".tabs button")) b.addEventListener("click", () => setMode(b.dataset.mode));
  for (const b of document.querySelectorAll(".langs button")) b.addEventListener("click", () => {
    lang = b.dataset.lang;
    localStorage.setItem("damasi.lang", lang);
    applyI18n();
    if (mode === "play") renderPlay(); else if (mode === "study") studyShow(); else renderGames();
  });
  $("btn-new").addEventListener("click", () => openNewDialog(false));
  $("btn-takeback").addEventListener("click", takeBack);
  $("btn-hint").addEventListener("click", hint);
  $("btn-flip").addEventListener("click", () => { board.setFlipped(!board.flipped); renderPlay(); });
  $("btn-draw").addEventListener("click", offerDraw);
  $("btn-resign").addEventListener("click", resign);
  $("btn-retry").addEventListener("click", retryEngine);
  $("draw-yes").addEventListener("click", () => answerDraw(true));
  $("draw-no").addEventListener("click", () => answerDraw(false));
  $("notation").addEventListener("change", () => {
    localStorage.setItem("damasi.notation", notation());
    if (mode === "study") studyShow(); else renderPlay();
  });
  $("move-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const text = $("move-input").value.trim();
    if (text) typedMove(text);
  });
  for (const [id, f] of [["nav-first", () => 0], ["nav-prev", (n) => n - 1], ["nav-next", (n) => n + 1], ["nav-last", () => Infinity]]) {
    $(id).addEventListener("click", () => { if (game) browse(f(viewPly === null ? game.plies.length : viewPly)); });
  }
  $("btn-copyfen-play").addEventListener("click", () => copyText(shownFen()));
  $("btn-analyse").addEventListener("click", () => {
    if (!game) return;
    if (study.editing) { study.editing = false; board.editTool = null; $("editor").hidden = true; }
    study.start = shownFen(); study.line = []; study.idx = 0;
    setMode("study");
  });

  $("new-level").addEventListener("input", () => { $("new-level-out").textContent = $("new-level").value; });
  for (const r of document.querySelectorAll('input[name="opp"]')) r.addEventListener("change", () => {
    $("engine-opts").disabled = document.querySelector('input[name="opp"]:checked').value !== "engine";
  });
  $("new-dialog").addEventListener("close", () => {
    if ($("new-dialog").returnValue === "ok") newGame(newGameBody());
  });

  $("st-undo").addEventListener("click", () => { if (study.idx > 0) { study.idx--; studyShow(); } });
  $("st-flip").addEventListener("click", () => { board.setFlipped(!board.flipped); studyShow(); });
  $("st-edit").addEventListener("click", () => { if (study.editing) finishEditor(); else startEditor(); });
  $("st-play").addEventListener("click", () => openNewDialog(true));
  for (const b of document.querySelectorAll(".palette button")) b.addEventListener("click", () => {
    study.tool = b.dataset.tool;
    board.editTool = study.tool;
    for (const o of document.querySelectorAll(".palette button")) o.setAttribute("aria-pressed", String(o === b));
  });
  $("ed-side").addEventListener("change", updateEditorFen);
  $("ed-clear").addEventListener("click", () => { study.edit.pieces = {}; board.pos = study.edit; board.drawPieces(); updateEditorFen(); });
  $("ed-start").addEventListener("click", () => {
    study.edit = parseFen("W:Wa2,b2,c2,d2,e2,f2,g2,h2,a3,b3,c3,d3,e3,f3,g3,h3:Ba6,b6,c6,d6,e6,f6,g6,h6,a7,b7,c7,d7,e7,f7,g7,h7");
    $("ed-side").value = "W";
    board.pos = study.edit; board.drawPieces(); updateEditorFen();
  });
  $("ed-done").addEventListener("click", finishEditor);
  $("fen-form").addEventListener("submit", (e) => { e.preventDefault(); loadFen($("fen-input").value); });
  $("st-copyfen").addEventListener("click", () => copyText($("fen-input").value));

  $("pdn-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const text = $("pdn-text").value;
    if (text.trim()) importPdn(text);
  });
  $("pdn-file").addEventListener("change", async () => {
    const f = $("pdn-file").files[0];
    if (f) { $("pdn-text").value = await f.text(); }
  });

  document.addEventListener("keydown", (e) => {
    const tag = (e.target.tagName || "").toLowerCase();
    if (["input", "textarea", "select"].includes(tag) || e.target === board.el || $("new-dialog").open) return;
    if (mode === "play" && game) {
      const cur = viewPly === null ? game.plies.length : viewPly;
      if (e.key === "ArrowLeft") { browse(cur - 1); e.preventDefault(); }
      else if (e.key === "ArrowRight") { browse(cur + 1); e.preventDefault(); }
      else if (e.key === "Home") { browse(0); e.preventDefault(); }
      else if (e.key === "End") { browse(Infinity); e.preventDefault(); }
    } else if (mode === "study") {
      if (e.key === "ArrowLeft" && study.idx > 0) { study.idx--; studyShow(); e.preventDefault(); }
      else if (e.key === "ArrowRight" && study.idx < study.line.length) { study.idx++; studyShow(); e.preventDefault(); }
    }
    if (e.key === "f" && !e.ctrlKey && !e.metaKey) { board.setFlipped(!board.flipped); if (mode === "study") studyShow(); else renderPlay(); }
    if (e.key === "m" && mode === "play") { $("move-input").focus(); e.preventDefault(); }
  });
}

async function boot() {
  applyI18n();
  board.init();
  wire();
  restoreNewDefaults();
  const n = localStorage.getItem("damasi.notation");
  if (n) $("notation").value = n;
  setInterval(tick, 200);
  $("btn-engine-mode").addEventListener("click", () => Local.toggle());
  $("btn-stop").addEventListener("click", () => { if (game && Local.stop(game.id)) refresh(game.id); });
  if (await Local.wanted()) {
    try { await Local.start(); } catch (e) { console.warn("in-browser engine:", e); showError(e); }
  }
  Local.decorate(null);
  await openFirstGame();
}

// The game shown at the start: the one played last, or else a new game against the engine.
// While the server cannot be reached, the page says so and tries again.
async function openFirstGame() {
  const saved = Number(localStorage.getItem("damasi.game")) || 0;
  for (let failures = 1; ; failures++) {
    try {
      if (saved) {
        try { await loadGame(saved); setMode("play"); return; } catch (e) { if (transient(e)) throw e; }
      }
      await createGame({ white: { kind: "human" }, black: { kind: "engine", level: 3 } });
      return;
    } catch (e) {
      if (!transient(e)) { showError(e); return; }
      $("status").textContent = t("reconnecting");
      $("status").className = "status offline";
      await sleep(Math.min(5000, 400 * 2 ** Math.min(failures, 4)));
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Study: the endgame tables' value of the position and of each legal move (GET /api/tablebase),
// shown only when the server has tables that cover the position.

var tbAbort = null;
async function tablebasePanel(fen, seq) {
  const panel = $("tb-panel");
  if (tbAbort) tbAbort.abort();
  tbAbort = new AbortController();
  let a;
  try {
    a = await api("GET", "/api/tablebase?fen=" + encodeURIComponent(fen), undefined, tbAbort.signal);
  } catch (e) {
    // No tables, too many pieces, or the server is gone: no panel.
    if (e.name !== "AbortError" && seq === study.seq) panel.hidden = true;
    return;
  }
  if (seq !== study.seq) return;
  $("tb-value").textContent = t("tb:" + a.value);
  $("tb-value").className = "tb-" + a.value;
  const list = $("tb-moves");
  list.textContent = "";
  for (const m of a.moves) {
    const li = document.createElement("li");
    const b = document.createElement("button");
    b.type = "button";
    b.className = "tb-" + m.value;
    b.textContent = m.move.landing + " " + t("tb:" + m.value);
    b.addEventListener("click", () => studyMove(m.move));
    li.appendChild(b);
    list.appendChild(li);
  }
  panel.hidden = false;
}

boot();
