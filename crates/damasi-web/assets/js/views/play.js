// The play view. The server referees: it keeps the game, runs the clocks, plays the engine's
// moves and decides the outcome. The page shows the game the server last described, sends what
// the person wants to do, and follows the game by long polling while it goes on.
import { Plies } from "../plies.js";
import { Local } from "../local.js";
import { $, sleep, other } from "../util.js";
import { t, sideName, gameOutcomeText, announce, toast } from "../i18n.js";
import { settings } from "../settings.js";
import { playSound } from "../sound.js";
import { syncUrl } from "../router.js";
import { api, ApiError, showError, transient } from "../api.js";
import { parseFen, START_FEN } from "../position.js";
import { board } from "../board/index.js";
import { S } from "../state.js";
import { setMode } from "../router.js";



// Before the person starts a game, the play view shows the start position of the game a first
// move starts (DRAFT_GAME); nothing is saved until then.
export function playerOf(side) { return S.game ? S.game[side] : DRAFT_GAME[side]; }
export function isEngine(side) { return playerOf(side).kind === "engine"; }
export function vsEngine() { return isEngine("white") || isEngine("black"); }
// The side a person's request speaks for: against the engine the person's own side; between
// two people on one screen the side to move.
export function humanSide() {
  if (!S.game) return "white";
  if (vsEngine()) return isEngine("white") ? "black" : "white";
  return S.game.side;
}
export function live() { return !!S.game && !S.game.outcome.over; }
export function engineState() { return (S.game && S.game.engine && S.game.engine.state) || "idle"; }
export function engineToMove() { return live() && isEngine(S.game.side); }
export function drawInfo() { return (S.game && S.game.draw) || { offers: {}, pending: null }; }
export function notation() { return $("notation").value; }
export function moveText(m) { return notation() === "captured" ? m.captured : m.landing; }
// Who played ply `i` (0-based) of the game.
export function moverOf(i) {
  const first = parseFen(S.game.start_fen).side === "B" ? "black" : "white";
  return i % 2 === 0 ? first : other(first);
}
/** The number of the move that ply `ply` (1 = the first ply) is part of, as the move list
 * numbers them. @param {string} startFen @param {number} ply */
export function moveNumber(startFen, ply) {
  const blackFirst = parseFen(startFen).side === "B";
  return Math.floor((ply - 1 + (blackFirst ? 1 : 0)) / 2) + 1;
}
export function hasOwnMove(side) { return S.game.plies.some((_, i) => moverOf(i) === side); }

export function setStatusNote(s) { S.statusNote = s; renderStatus(); }

// A game as the server describes it; anything else (a proxy's page, a truncated answer) is
// not taken for one.
export function isGame(g) {
  return !!g && typeof g === "object" && Number.isInteger(g.id) && Array.isArray(g.plies)
    && typeof g.fen === "string" && !!g.outcome && Array.isArray(g.legal);
}

// ----- clocks: the server's figures, counted down here only for the running side

export function clockLeft(side) {
  const c = S.game && S.game.clock;
  if (!c) return null;
  let ms = Number(c[side + "_ms"]) || 0;
  if (c.running === side && live()) ms -= performance.now() - S.gameAt;
  return Math.max(0, ms);
}

export function fmtClock(ms) {
  ms = Math.max(0, ms);
  const s = Math.ceil(ms / 1000);
  const m = Math.floor(s / 60);
  if (ms < 10000) return `${m}:${String(s % 60).padStart(2, "0")}.${Math.floor((ms % 1000) / 100)}`;
  return `${m}:${String(s % 60).padStart(2, "0")}`;
}

let flagAskedAt = -Infinity;

export function tick() {
  if (S.mode === "play") renderClocks();
  const running = live() && S.game.clock && S.game.clock.running;
  // The page never decides a loss on time: at zero it asks the server, which knows better.
  if (running && clockLeft(running) === 0 && performance.now() - flagAskedAt > 2000) askFlag();
}

export async function askFlag() {
  flagAskedAt = performance.now();
  const id = S.game.id;
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

export function follow() {
  if (!live()) { stopFollowing(); return; }
  if (follower && follower.id === S.game.id) return;
  stopFollowing();
  const f = { id: S.game.id, ctrl: new AbortController() };
  follower = f;
  followLoop(f).finally(() => { if (follower === f) follower = null; });
}

export function stopFollowing() {
  if (follower) follower.ctrl.abort();
  follower = null;
  setOffline(false);
}

export function setOffline(v) {
  if (S.offline === v) return;
  S.offline = v;
  if (S.game) renderPlay();
}

export async function followLoop(f) {
  let failures = 0;
  while (follower === f && live() && S.game.id === f.id) {
    const started = performance.now();
    const seq = S.actionSeq;
    try {
      const g = await nextState(f);
      failures = 0;
      setOffline(false);
      await settled();
      if (follower !== f) return;
      // A state fetched while the person acted is stale unless it is a newer version; one
      // fetched while nothing happened here is the server's word, even if its version went
      // back (a server that lost its numbering must not leave the page stuck).
      if (S.actionSeq === seq) await advance(g, 0, true);
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
export async function nextState(f) {
  const key = [S.game.id, S.game.version, S.game.plies.length].join(":");
  if (engineToMove() && engineState() === "idle" && engineKicked !== key) {
    engineKicked = key;
    const res = await api("POST", `/api/games/${f.id}/engine`, undefined, f.ctrl.signal);
    return res && res.game ? res.game : res;
  }
  const wait = Number.isInteger(S.game.version) ? `?wait_version=${S.game.version}` : "";
  return api("GET", `/api/games/${f.id}${wait}`, undefined, f.ctrl.signal);
}

// Waits until the person's requests and the animations are done, so that a state the
// follower fetched meanwhile is compared with the newest one.
export async function settled() {
  while (S.acting || S.animating) await sleep(50);
}

// ----- taking in a game the server sent

export function newer(g) {
  return isGame(g) && !!S.game && g.id === S.game.id && Number.isInteger(g.version) && g.version > S.game.version;
}

// Whether `g` changes what the page shows beyond the clocks.
export function differs(g) {
  if (!Number.isInteger(g.version) || !Number.isInteger(S.game.version)) return true;
  if (g.version !== S.game.version) return true;
  const e = (x) => JSON.stringify([x.engine, x.draw, x.outcome, x.clock && x.clock.running]);
  return e(g) !== e(S.game);
}

// Takes `g` if it is the shown game and (unless `force`) not older than what the page has;
// returns whether the page was redrawn.
export function accept(g, force = false) {
  if (!isGame(g) || !S.game || g.id !== S.game.id) return false;
  if (!force && Number.isInteger(g.version) && Number.isInteger(S.game.version) && g.version < S.game.version) return false;
  if (!differs(g)) {
    S.game = g;
    S.gameAt = performance.now();
    renderClocks();
    return false;
  }
  setGame(g);
  return true;
}

// The plies `g` adds to the shown game (a move and perhaps the engine's reply), if it only adds.
export function addedPlies(g) {
  const n = S.game.plies.length;
  if (g.plies.length <= n || g.plies.length > n + 2) return 0;
  if (n > 0 && g.plies[n - 1].fen !== S.game.plies[n - 1].fen) return 0;
  return g.plies.length - n;
}

// Shows `g`, animating the moves it adds when the live position is on the board; the first
// `skip` of them are already animated.
export async function advance(g, skip = 0, force = false) {
  if (!isGame(g) || !S.game || g.id !== S.game.id) return;
  const from = S.game.plies.length;
  const added = differs(g) ? addedPlies(g) : 0;
  if (added && S.mode === "play" && S.viewPly === null) {
    S.animating = true;
    try {
      for (let k = from + skip; k < from + added; k++) {
        // After a move animated without its position (the person's own), set that position.
        if (k > from) { board.pos = parseFen(g.plies[k - 1].fen); board.drawPieces(); }
        await board.animate(g.plies[k].move, g.plies[k].fen);
      }
    } finally { S.animating = false; }
  }
  if (!S.game || g.id !== S.game.id || !accept(g, force)) return;
  for (let k = from; k < from + added; k++) announceMove(k);
  if (g.outcome.over) announce(gameOutcomeText(g));
}

export function announceMove(k) {
  const m = S.game.plies[k].move;
  const side = moverOf(k);
  announce(isEngine(side) ? t("enginePlays", { move: moveText(m) }) : t("played", { side: sideName(side), move: moveText(m) }));
}

export function setGame(g) {
  S.game = g;
  S.gameAt = performance.now();
  board.hint = null;
  board.hintMove = null;
  localStorage.setItem("damasi.game", String(g.id));
  S.viewPly = null;
  if (S.mode === "play") S.statusNote = "";
  renderPlay();
  follow();
  // Another game shown: a new history entry, so Back returns to the one before.
  if (S.mode === "play") syncUrl("push");
}

// ----- rendering

// The result, under the board (never over it), with a button to play the same match again.
export function renderBanner() {
  const el = $("banner");
  const over = S.mode === "play" && S.game && S.game.outcome.over && S.viewPly === null;
  if (!over) { el.hidden = true; return; }
  const box = $("banner-text");
  box.textContent = "";
  // One sentence says who won and why; the status line is hidden meanwhile (renderStatus).
  const head = document.createElement("strong");
  head.textContent = gameOutcomeText(S.game);
  const score = document.createElement("small");
  score.textContent = S.game.outcome.result;
  box.append(head, score);
  $("btn-review").href = `#/review/${S.game.id}`;
  el.hidden = false;
}

// A new game with the same players, rules and clock; against the engine the person takes the
// other colour.
export async function rematch() {
  const g = S.game;
  if (!g) return;
  const body = { white: g.white, black: g.black, rules: g.rules || "turkish" };
  if (vsEngine()) { body.white = g.black; body.black = g.white; }
  if (g.clock && g.clock.initial_ms) {
    body.clock = { minutes: g.clock.initial_ms / 60000, increment_s: (g.clock.increment_ms || 0) / 1000 };
  }
  await newGame(body);
}

// What the status line says about the live game. It names a person's move only when the
// server says it is that person's move and the page can reach the server.
export function liveStatus() {
  if (S.offline) return { text: t("reconnecting"), cls: "offline" };
  if (engineToMove()) {
    if (engineState() === "failed") return { text: t("engineFailed", { error: S.game.engine.error || "?" }), cls: "failed" };
    return { text: t("thinking"), cls: "thinking" };
  }
  const pending = drawInfo().pending;
  if (pending && !vsEngine()) return { text: t("drawWaits", { side: sideName(other(pending)) }), cls: "" };
  const base = vsEngine() ? t("yourMove", { side: sideName(S.game.side) }) : t("toMove", { side: sideName(S.game.side) });
  const note = S.statusNote || (S.game.forced_capture ? t("mustCapture") : "");
  return { text: note ? base + ". " + note : base, cls: "" };
}

export function renderStatus() {
  renderBanner();
  const el = $("status");
  el.classList.remove("over", "thinking", "offline", "failed");
  // The result is said once, by the banner.
  el.hidden = S.mode === "play" && !$("banner").hidden;
  // The views with a board of their own say what they want in the status line.
  if (["study", "learn", "puzzle", "review"].includes(S.mode)) { el.textContent = S.statusNote; return; }
  if (!S.game) { el.textContent = S.mode === "play" ? t("draftStatus", { side: sideName("white") }) : ""; return; }
  let s;
  if (S.viewPly !== null) s = { text: viewingText(S.viewPly), cls: "" };
  else if (S.game.outcome.over) s = { text: gameOutcomeText(S.game) + " (" + S.game.outcome.result + ")", cls: "over" };
  else s = liveStatus();
  el.textContent = s.text;
  if (s.cls) el.classList.add(s.cls);
}

// "Viewing move 12, Black": the move number of ply `ply` (the position after it), not its index.
export function viewingText(ply) {
  if (ply === 0) return t("viewingStart");
  return t("viewing", { n: moveNumber(S.game.start_fen, ply), side: sideName(moverOf(ply - 1)) });
}

// A player's name from an imported record (its White or Black tag), if it has one.
export function recordName(side) {
  const tags = S.game && S.game.tags;
  const name = tags && typeof tags === "object" ? tags[side === "white" ? "White" : "Black"] : null;
  return typeof name === "string" && name.trim() && name.trim() !== "?" ? name.trim() : "";
}

export function playerLabel(side) {
  const p = playerOf(side);
  const who = recordName(side)
    || (p.kind === "engine" ? t("engineLevel", { n: p.level }) + ` (${t("lvl" + p.level)})` : (vsEngine() ? t("you") : t("person")));
  // A name from a file is text, never markup.
  const safe = who.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<span class="dot ${side}"></span>${sideName(side)} · ${safe}`;
}

export function topSide() { return board.flipped ? "white" : "black"; }

export function renderPlayers() {
  const sides = [["top", topSide()], ["bottom", other(topSide())]];
  for (const [pos, side] of sides) {
    const name = $("name-" + pos);
    const shown = S.mode === "play";
    name.innerHTML = shown ? playerLabel(side) : "";
    name.classList.toggle("tomove", shown && (S.game ? live() && S.game.side === side : side === "white"));
  }
  renderClocks();
}

export function renderClocks() {
  for (const [id, side] of [["clock-top", topSide()], ["clock-bottom", other(topSide())]]) {
    const el = $(id);
    const ms = S.mode === "play" ? clockLeft(side) : null;
    el.hidden = ms === null;
    if (ms === null) continue;
    el.textContent = fmtClock(ms);
    el.dataset.ms = String(Math.round(ms));
    el.classList.toggle("running", live() && S.game.clock.running === side);
    el.classList.toggle("low", ms < 20000);
    lowTimeSound(side, ms);
    el.setAttribute("aria-label", `${sideName(side)} ${fmtClock(ms)}`);
  }
}

// One warning tone when the person's running clock falls under ten seconds.
let lowWarned = "";
function lowTimeSound(side, ms) {
  const key = S.game.id + ":" + side;
  if (ms >= 10000 || !live() || S.game.clock.running !== side || isEngine(side)) return;
  if (lowWarned === key) return;
  lowWarned = key;
  playSound("low");
}

export function shownFen() {
  if (!S.game) return START_FEN;
  if (S.viewPly === null || S.viewPly === S.game.plies.length) return S.game.fen;
  return S.viewPly === 0 ? S.game.start_fen : S.game.plies[S.viewPly - 1].fen;
}

export function lastMoveSquares(ply) {
  if (!S.game || ply <= 0) return null;
  const m = S.game.plies[ply - 1].move;
  return [m.from, ...m.route];
}

// Whether the person to move may act now (move, hint, offer a draw).
export function personToMove() {
  return live() && S.viewPly === null && !S.acting && !S.offline && !isEngine(S.game.side)
    && !(drawInfo().pending && !vsEngine());
}

export function renderPlayBoard() {
  if (!S.game) return;
  const ply = S.viewPly === null ? S.game.plies.length : S.viewPly;
  const mine = personToMove();
  // While the engine thinks, the person may enter a premove (when the setting allows it).
  const pre = !mine && settings.premove && S.viewPly === null && engineToMove() && vsEngine() && !S.offline;
  if (!pre && !mine) S.premove = null;
  board.set(shownFen(), {
    moves: mine ? S.game.legal : [],
    onMove: mine ? humanMove : null,
    last: lastMoveSquares(ply),
    onPremove: pre ? setPremove : null,
    premoveColor: pre ? humanSide()[0] : null,
    premove: pre ? S.premove : null,
  });
  if (mine && S.premove) playPremove();
}

function setPremove(pm) {
  S.premove = pm;
  board.premove = pm;
  if (pm) announce(t("premoveSet", { move: pm.from + "-" + pm.to }));
}

// The premove, once it is the person's move: played when exactly one legal move goes from its
// square to its square, else dropped with a word.
function playPremove() {
  const pm = S.premove;
  S.premove = null;
  board.premove = null;
  const hits = S.game.legal.filter((m) => m.from === pm.from && m.to === pm.to);
  if (hits.length === 1) { setTimeout(() => humanMove(hits[0], { premove: true }), 0); return; }
  board.drawMarks();
  setStatusNote(t("premoveGone"));
}

// `onEarlier(i)`, if given, loads the missing plies before ply index `i` (a long game's
// earlier pages): a button stands where they would be.
export function renderMoveList(listEl, plies, startFen, current, onPick, result, onEarlier) {
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
    if (ply % 2 === 0 || li === null || gap) li = moveRow(listEl, ply);
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
export function renderButtons() {
  const going = live() && !S.acting && !S.offline;
  const me = humanSide();
  // Taking back while the engine thinks is allowed: the server stops the engine first.
  $("btn-takeback").hidden = !live();
  $("btn-takeback").disabled = !going || !hasOwnMove(takeBackSide());
  $("btn-hint").disabled = !personToMove();
  const left = (Number(drawInfo().max) || 2) - (Number(drawInfo().offers[me]) || 0);
  $("btn-draw").disabled = !personToMove() || left <= 0;
  $("btn-draw").title = t("offersLeft", { n: Math.max(0, left) });
  $("btn-resign").disabled = !going || (!vsEngine() && !!drawInfo().pending);
  // Before the first game the person is to move too: a typed move starts it (startDraftTyped).
  $("move-input").disabled = !personToMove() && !(S.mode === "play" && !S.game);
  $("btn-retry").hidden = !(S.mode === "play" && engineToMove() && engineState() === "failed" && !S.offline && S.viewPly === null);
  $("btn-retry").disabled = S.acting > 0;
  renderDrawAsk();
  Local.decorate(S.mode === "play" ? S.game : null);
}

// Between two people on one screen, a draw offer waits for the other person's answer here
// (also after a reload: the offer is part of the game).
export function renderDrawAsk() {
  const pending = S.mode === "play" && live() && !vsEngine() ? drawInfo().pending : null;
  $("draw-ask").hidden = !pending;
  if (!pending) return;
  $("draw-ask-text").textContent = t("drawAsk", { side: sideName(pending), other: sideName(other(pending)) });
  $("draw-yes").disabled = $("draw-no").disabled = S.acting > 0 || S.offline;
}

export function renderPlay() {
  $("btn-export-play").hidden = !S.game;
  if (!S.game) { renderDraft(); return; }
  // The board belongs to whichever tab is shown; the game may change behind the Study tab.
  if (S.mode === "play" && !S.animating) renderPlayBoard();
  const current = S.viewPly === null ? S.game.plies.length : S.viewPly;
  renderMoveList($("movelist"), S.game.plies, S.game.start_fen, current, (n) => browse(n), S.game.outcome.over ? S.game.outcome.result : null, loadEarlier);
  renderButtons();
  $("btn-export-play").href = `/api/games/${S.game.id}/pdn`;
  $("btn-export-play").setAttribute("download", `damasi-game-${S.game.id}.pdn`);
  renderPlayers();
  renderStatus();
}

// Loads the page of a long game that ends with ply index `i`, then shows the list again.
export async function loadEarlier(i) {
  const g = S.game;
  try {
    if (await Plies.load(g, i, (path) => api("GET", path)) && S.game === g) renderPlay();
  } catch (e) { showError(e); }
}

export function browse(n) {
  if (!S.game) return;
  n = Math.max(0, Math.min(S.game.plies.length, n));
  // A ply of a long game not fetched yet: fetch its page first.
  if (n > 0 && !Plies.has(S.game, n - 1)) {
    const g = S.game;
    Plies.load(g, n - 1, (path) => api("GET", path))
      .then((ok) => { if (ok && S.game === g) browse(n); })
      .catch(showError);
    return;
  }
  S.viewPly = n === S.game.plies.length ? null : n;
  board.clearSel();
  renderPlay();
  if (n > 0) announce(moveText(S.game.plies[n - 1].move));
}

// ----- the person's actions

// Runs a request of the person: the follower waits for it, and the page is redrawn whatever
// the answer (an error is shown in the reader's language).
export async function act(fn) {
  S.acting++;
  renderButtons();
  try {
    return await fn();
  } catch (e) {
    showError(e);
    // A refusal because the game moved on (the clock fell, another tab played): show it now.
    if (e instanceof ApiError && e.status === 409 && S.game) refresh(S.game.id);
    return null;
  } finally {
    S.acting--;
    S.actionSeq++;
    if (S.game) renderPlay();
  }
}

export async function refresh(id) {
  try { accept(await api("GET", `/api/games/${id}`)); } catch (_) { /* the follower retries */ }
}

export async function humanMove(m, opts = {}) {
  if (!S.game || S.acting) return;
  const id = S.game.id;
  if (settings.confirm && !opts.premove && !opts.confirmed && !(await confirmMove(m))) { renderPlayBoard(); return; }
  if (!S.game || S.game.id !== id || S.acting) return;
  await act(async () => {
    const animation = board.animate(m, null, opts.dragged);
    let g;
    try { g = await api("POST", `/api/games/${id}/move`, { move: m.landing }); } finally { await animation; }
    await advanceAfterAction(g, 1);
  });
}

// Asks "Play d3-d4?" with the move drawn on the board; resolves to the answer.
function confirmMove(m) {
  return new Promise((resolve) => {
    board.set(shownFen(), { last: S.game ? lastMoveSquares(S.game.plies.length) : null });
    board.hint = [m.from, ...m.route];
    board.hintMove = m;
    board.drawMarks();
    $("confirm-text").textContent = t("confirmAsk", { move: moveText(m) });
    $("confirm-move").hidden = false;
    const done = (/** @type {boolean} */ yes) => {
      $("confirm-move").hidden = true;
      $("confirm-yes").onclick = $("confirm-no").onclick = null;
      board.hint = null; board.hintMove = null;
      resolve(yes);
    };
    $("confirm-yes").onclick = () => done(true);
    $("confirm-no").onclick = () => done(false);
    $("confirm-yes").focus();
  });
}

export async function typedMove(text) {
  if (!S.game && S.mode === "play") return startDraftTyped(text);
  if (!S.game || S.acting || S.viewPly !== null) return;
  const id = S.game.id;
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
export async function advanceAfterAction(g, skip) {
  if (isGame(g) && S.game && g.id === S.game.id) await advance(g, skip);
}

export async function newGame(body) {
  try { await createGame(body); } catch (e) { showError(e); }
}

export async function createGame(body) {
  // An unplayed game with the person to move is not worth keeping.
  if (S.game && S.game.plies.length === 0 && live() && !isEngine(S.game.side)) {
    await api("DELETE", `/api/games/${S.game.id}`).catch(() => {});
  }
  const g = await api("POST", "/api/games", body);
  stopFollowing();
  S.game = null;
  $("move-input").value = "";
  showNewGame(g);
  setMode("play");
}

export function showNewGame(g) {
  if (!isGame(g)) throw new Error(t("err:bad-answer"));
  const flip = g.white.kind === "engine" && g.black.kind === "human";
  if (board.flipped !== flip) board.setFlipped(flip);
  setGame(g);
}

export async function loadGame(id) {
  const g = await api("GET", `/api/games/${id}`);
  stopFollowing();
  S.game = null;
  showNewGame(g);
}

// ----- before the first game

/** The game a first move on the start position starts: the person (White) against the engine. */
export const DRAFT_GAME = Object.freeze({ white: { kind: "human" }, black: { kind: "engine", level: 3 } });
/** @type {any[]|null} the legal moves of the start position, once the server sent them */
let draftLegal = null;

// The play view with no game: the start position, the person to move; the game is created
// (and saved) only by the first move, or by "New game".
export function renderDraft() {
  renderMoveList($("movelist"), [], START_FEN, 0, () => {}, null);
  renderButtons();
  renderPlayers();
  renderStatus();
  if (S.mode !== "play" || S.animating) return;
  board.set(START_FEN, { moves: draftLegal || [], onMove: draftLegal ? startDraft : null });
  if (!draftLegal) {
    api("GET", "/api/moves?fen=" + encodeURIComponent(START_FEN)).then((res) => {
      if (!res || !Array.isArray(res.moves)) return;
      draftLegal = res.moves;
      if (!S.game) renderDraft();
    }).catch(showError);
  }
}

// The person's first move: the game starts now, with that move.
async function startDraft(m, opts = {}) {
  if (S.game || S.acting) return;
  if (settings.confirm && !(await confirmMove(m))) { renderDraft(); return; }
  S.acting++;
  try {
    await createGame({ ...DRAFT_GAME });
  } catch (e) {
    showError(e);
    return;
  } finally {
    S.acting--;
  }
  const move = S.game && S.game.plies.length === 0 && S.game.legal.find((x) => x.landing === m.landing);
  if (move) await humanMove(move, { confirmed: true, dragged: opts.dragged });
  else if (!S.game) renderDraft();
}

// A move typed before the first game: read on the start position first, so that a wrong
// one starts no game (and says why); a good one starts the game as a move on the board does.
/** @param {string} text */
async function startDraftTyped(text) {
  if (S.game || S.acting) return;
  let m;
  try {
    m = (await api("POST", "/api/move", { fen: START_FEN, move: text })).move;
  } catch (e) {
    e.typed = text;   // an illegal move's message quotes what was typed
    showError(e);
    return;
  }
  $("move-input").value = "";
  await startDraft(m);
}

// The side whose last move a take-back removes: against the engine the person's own (the
// server takes back the engine's reply too); between two people the move just played.
export function takeBackSide() { return vsEngine() ? humanSide() : other(S.game.side); }

export async function takeBack() {
  if (!S.game || S.acting) return;
  const id = S.game.id, side = takeBackSide();
  await act(async () => accept(await api("POST", `/api/games/${id}/takeback`, { side })));
}

export async function hint() {
  if (!S.game || S.acting) return;
  const id = S.game.id;
  setStatusNote(t("thinking"));
  await act(async () => {
    const a = await api("POST", `/api/games/${id}/hint`);
    S.statusNote = "";
    if (!a || !a.best || !S.game || S.game.id !== id) return;
    board.hint = [a.best.from, ...a.best.route];
    board.hintMove = a.best;
    board.drawMarks();
    const msg = t("hintIs", { move: moveText(a.best) });
    toast(msg);
    announce(msg);
  });
  S.statusNote = "";
  renderStatus();
}

export async function offerDraw() {
  if (!personToMove()) return;
  const id = S.game.id, side = humanSide();
  if (!confirm(t("confirmDraw"))) return;
  await act(async () => {
    const res = await api("POST", `/api/games/${id}/draw`, { side });
    accept(res && res.game);
    if (res && res.pending) { announce($("draw-ask-text").textContent); return; }
    const msg = vsEngine() ? t(res && res.accepted ? "drawAccepted" : "drawDeclined") : "";
    if (msg) { toast(msg); announce(msg); }
  });
}

export async function answerDraw(accepted) {
  const pending = drawInfo().pending;
  if (!live() || !pending || S.acting) return;
  const id = S.game.id, side = other(pending);
  await act(async () => {
    accept(await api("POST", `/api/games/${id}/draw/answer`, { side, accept: accepted }));
    if (!accepted) { const msg = t("drawDeclinedBy", { side: sideName(side) }); toast(msg); announce(msg); }
  });
}

export async function resign() {
  if (!live() || S.acting) return;
  const id = S.game.id, side = humanSide();
  if (!confirm(t("confirmResign"))) return;
  await act(async () => accept(await api("POST", `/api/games/${id}/resign`, { side })));
  if (S.game && S.game.outcome.over) announce(gameOutcomeText(S.game));
}

// After the engine failed (its clock is paused), the person asks it to try again.
export async function retryEngine() {
  if (!engineToMove() || S.acting) return;
  const id = S.game.id;
  await act(async () => {
    const res = await api("POST", `/api/games/${id}/engine`);
    accept(res && res.game ? res.game : res);
  });
}

/** A new row of a move list for the move at `ply` (0 = White's first): its number, and an
 * empty White cell when it starts with Black's move. @param {HTMLElement} listEl @param {number} ply */
export function moveRow(listEl, ply) {
  const li = document.createElement("li");
  const num = document.createElement("span");
  num.className = "num";
  num.textContent = Math.floor(ply / 2) + 1 + ".";
  li.appendChild(num);
  if (ply % 2 === 1) li.appendChild(document.createElement("span"));
  listEl.appendChild(li);
  return li;
}
