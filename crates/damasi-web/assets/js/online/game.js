// One online game at /online/{id}: the server keeps the game and its clocks and sends every
// change over the game's socket (socket.js): each state brings the legal moves and the last
// move with its route and captures, which the board plays step by step. The
// page keeps the last state in one object (state.js) and draws everything from it in one
// redraw: the board is the main page's (board/: input, capture routes, animation, arrows).
import { $, other } from "../util.js";
import { api, ApiError, errorText, showError } from "../api.js";
import { announce, sideName, t } from "../i18n.js";
import { parseFen } from "../position.js";
import { board } from "../board/index.js";
import { clearUserShapes } from "../board/shapes.js";
import { playSound } from "../sound.js";
import { setSetting } from "../settings.js";
import { SIDES, act, copyField, go, over, plies, resultSentence, running, toast } from "./common.js";
import { ensureSession, loadAccount, session } from "./account.js";
import { clockLeft, flipped, myTurn, premoveTime, seatedAs, view } from "./state.js";
import { connect, send, socket, watchSilence, wireReconnects } from "./socket.js";
import { events, startEvents } from "./events.js";
import { openReport } from "./moderation.js";
import {
  chatHidden, chatKey, renderActions, renderChat, renderChatHidden, renderClocks, renderInfo,
  renderAfterGame, renderMoves, renderPlayers, renderResult, renderTitle, setStatus, statusText,
} from "./panels.js";

// The squares of a move in landing notation, its start first: `d4xd6xd8=K` -> d4 d6 d8.
/** @param {string} text @returns {string[]} */
function landingSquares(text) {
  return (text || "").match(/[a-h][1-8]/g) || [];
}

/** The last move's squares: the one sent, else the last the server has. */
function lastMoveSquares() {
  if (browsing()) return view.browse > 0 ? landingSquares(plies(view.state)[view.browse - 1]) : [];
  return view.pending ? [view.pending.from, ...view.pending.route] : landingSquares(plies(view.state).slice(-1)[0]);
}

/** Whether a finished game is shown at an earlier ply than its end. */
function browsing() {
  return view.browse != null && over(view.state) && Array.isArray(view.state.fens);
}

/** Shows ply `ply` of the finished game (clamped; its end leaves the replay). @param {number} ply */
function browseTo(ply) {
  const s = view.state;
  if (!over(s) || !Array.isArray(s.fens)) return;
  const n = s.fens.length - 1;
  const p = Math.max(0, Math.min(n, ply));
  view.browse = p === n ? null : p;
  renderBoard();
  renderMoves();
}

/** The key of the position the state shows: the server's FEN, and the move sent if any. */
function positionKey() {
  if (browsing()) return "ply " + view.browse + ": " + view.state.fens[view.browse];
  return view.state ? view.state.fen + (view.pending ? "|" + view.pending.landing : "") : "";
}

// The board follows the state: the position shown, whose move it is, the last move. While a
// move is animated the pieces are left to the animation, but the person may already click.
function renderBoard() {
  if (board.flipped !== flipped()) board.setFlipped(flipped());
  const last = lastMoveSquares();
  board.el.dataset.lastMove = last.join("-");
  const mine = myTurn();
  const pre = premoveTime();
  if (!pre && !mine) view.premove = null;
  const opts = {
    moves: mine ? view.legal : [],
    onMove: mine ? playMove : null,
    last,
    onPremove: pre ? setPremove : null,
    premoveColor: pre ? view.you[0] : null,
    premove: pre ? view.premove : null,
  };
  const key = positionKey();
  if (key !== board.fen && !view.animating) {
    const pos = browsing() ? parseFen(view.state.fens[view.browse]) : view.shown;
    board.set(key, { pos: pos || { side: "W", pieces: {} }, ...opts });
    return;
  }
  Object.assign(board, opts);
  board.drawMarks();
}

/** The premove entered on the board (null: taken away). @param {{from: string, to: string}|null} pm */
function setPremove(pm) {
  view.premove = pm;
  board.premove = pm;
  if (pm) announce(t("premoveSet", { move: pm.from + "-" + pm.to }));
}

// The premove, once the legal moves of the person's turn are known: played when exactly one
// legal move goes from its square to its square, else dropped with a word.
function playPremove() {
  const pm = view.premove;
  view.premove = null;
  board.premove = null;
  const hits = view.legal.filter((m) => m.from === pm.from && m.to === pm.to);
  if (hits.length === 1) { playMove(hits[0]); return; }
  board.drawMarks();
  setStatus(t("premoveGone"));
}

// One warning tone when the person's running clock falls under ten seconds.
function lowTimeSound() {
  const s = view.state;
  if (!running(s) || !view.you || s.turn !== view.you || clockLeft(view.you) >= 10000) return;
  const key = view.id + ":" + view.you;
  if (view.lowWarned === key) return;
  view.lowWarned = key;
  playSound("low");
}

/**
 * Plays the move `m` on the board step by step (at once after a drag), then shows the state's
 * position; a square picked meanwhile stays picked when the position is still the same.
 * @param {any} m
 */
async function animate(m, instant = false) {
  const key = positionKey();
  if (key !== board.fen) clearUserShapes(board.el);
  view.animating = true;
  try { await board.animate(m, null, instant); } finally {
    view.animating = false;
    if (positionKey() === key) {
      board.fen = key;
      board.pos = view.shown;
      board.drawPieces();
    }
    renderBoard();
  }
}

// The person touches the board while a move is animated: the board shows the position at
// once, so that what they pick is on the pieces they see.
function settleAnimation() {
  if (!view.animating) return;
  board.fen = positionKey();
  board.pos = view.shown;
  board.drawPieces();
}

// The one redraw: everything the page shows of the game, from the state.
export function renderGame() {
  renderTitle();
  renderBoard();
  renderPlayers();
  renderClocks();
  setStatus(statusText());
  $("status").classList.toggle("over", over(view.state));
  // Once the game is over its result banner says how, once: the status line steps aside.
  $("status").hidden = over(view.state);
  renderResult();
  renderActions();
  renderMoves();
  renderAfterGame();
  renderInfo();
}

// The person's move, chosen on the board: shown at once and sent; the server's answer then
// replaces the board.
/** @param {any} m @param {{dragged?: boolean}} [how] */
function playMove(m, how = {}) {
  // A premove played while the opponent's move is still on its way: that one ends at once.
  settleAnimation();
  const pieces = { ...view.shown.pieces };
  const piece = pieces[m.from];
  delete pieces[m.from];
  for (const c of m.captures) delete pieces[c];
  if (piece) pieces[m.to] = { c: piece.c, k: piece.k || m.promotion };
  view.shown = { side: view.shown.side === "W" ? "B" : "W", pieces };
  view.pending = m;
  playSound(m.captures.length > 0 ? "capture" : "move");
  animate(m, !!how.dragged);
  renderGame();
  send({ t: "move", move: m.landing }, () => api("POST", `/api/online/games/${view.id}/move`, { move: m.landing }));
}

/** A refused request: shown, and the board goes back to the server's state. @param {any} e */
function refused(e) {
  showError(e);
  view.pending = null;
  if (view.state) view.shown = parseFen(view.state.fen);
  board.fen = null;
  renderGame();
}

/** The legal moves of the person's turn, as the server's state carries them. */
function loadLegal() {
  const s = view.state;
  if (!s || !running(s) || !view.you || s.turn !== view.you) { view.legal = []; view.legalFen = ""; return; }
  if (view.legalFen === s.fen) return;
  view.legal = Array.isArray(s.legal) ? s.legal : [];
  view.legalFen = s.fen;
  renderBoard();
  setStatus(statusText());
  if (view.premove && myTurn()) playPremove();
}

/** The whole game (the socket's first message, or GET). @param {any} full */
function applyFull(full) {
  const { state, ...rest } = full;
  const seatsBefore = view.full ? SIDES.map((s) => view.full[s] && view.full[s].id).join() : "";
  view.full = rest;
  if (Array.isArray(full.chat)) view.chat = full.chat.slice();
  view.you = seatedAs(view.full);
  const seatsNow = SIDES.map((s) => view.full[s] && view.full[s].id).join();
  if (seatsBefore && seatsBefore !== seatsNow) announce(t("onSeatsTaken"));
  renderChat();
  applyState(state, true);
}

/** A new state of the game. @param {any} s */
function applyState(s, fromFull = false) {
  const prev = view.state;
  // Versions only grow (across restarts too): an older state arriving late is dropped.
  if (prev && typeof prev.version === "number" && typeof s.version === "number" && s.version < prev.version) return;
  const before = plies(prev).length;
  const shownBefore = view.shown;
  view.state = s;
  view.stateAt = performance.now();
  const now = plies(s);
  const confirmed = view.pending && now.length > before;
  // A full state (after a reconnection) is the truth: a move lost on the way is dropped.
  if (fromFull || now.length !== before || !view.pending || confirmed || over(s)) {
    view.pending = null;
    view.shown = parseFen(s.fen);
  }
  if (prev && now.length > before && !confirmed) {
    const last = now[now.length - 1];
    playSound(last.includes("x") ? "capture" : "move");
    announce(t("played", { side: sideName(now.length % 2 === 1 ? "white" : "black"), move: last }));
    // Another's move is played on the board step by step, as the server describes it.
    const m = s.lastMove;
    if (m && now.length === before + 1 && !view.animating && shownBefore && shownBefore.pieces[m.from]) animate(m);
  }
  if (prev && now.length < before) announce(t("onTakenBack"));
  // The person's offer answered with a no (it went while no move was made).
  if (prev && view.you && running(s) && now.length === before) {
    const k = view.you[0];
    if (prev[k + "draw"] && !s[k + "draw"]) toast(t("onDrawDeclined"));
    if (prev[k + "takeback"] && !s[k + "takeback"]) toast(t("onTakebackDeclined"));
  }
  if (!s.gone || !view.you || !s.gone[other(view.you)]) view.claimAt = null;
  if (over(s) && (!prev || !over(prev))) {
    view.resignAsk = false;
    if (prev) announce(resultSentence(s));
    if (view.full && view.full.rated) loadAccount();
    if (view.you) followNextGame();
  }
  if (s.rematch && view.you && !view.followed && prev && !prev.rematch) {
    view.followed = true;
    setTimeout(() => go(s.rematch), 600);
  }
  renderGame();
  loadLegal();
}

/**
 * After the player's game ends, their next one (an arena's pairing, a Swiss's next round, a
 * seek taken elsewhere) opens here as it would in the lobby (#44 item 3): the account's event
 * stream tells of each game that starts; those already going on come first and are left.
 */
function followNextGame() {
  if (!session.me) return;
  events.onEvent = (/** @type {any} */ ev) => {
    if (ev.type !== "gameStart" || !ev.game || ev.game.id === view.id || !events.burstDone) return;
    playSound("low");
    document.title = "▶ " + t("swYourGameStarts");
    toast(t("swYourGameStarts"));
    setTimeout(() => go(ev.game.id), 700);
  };
  startEvents();
}

/** @param {any} msg */
function onSocketMessage(msg) {
  switch (msg.type) {
    case "gameFull":
      applyFull(msg);
      break;
    case "gameState":
      applyState(msg);
      break;
    case "chatLine":
      view.chat.push({ username: msg.username, text: msg.text });
      renderChat();
      break;
    case "opponentGone":
      if (view.you && msg.side === other(view.you)) {
        view.claimAt = msg.gone ? performance.now() + (msg.claimWinInSeconds || 0) * 1000 : null;
        renderActions();
      }
      break;
    case "error":
      refused(new ApiError(400, msg));
      break;
    default:
      break;
  }
}

async function takeSeat() {
  const f = view.full;
  if (!session.me && f && f.rated) { toast(t("onSeatRatedToast")); return; }
  if (!(await ensureSession())) return;
  const color = new URLSearchParams(location.search).get("color") || undefined;
  const r = await act($("btn-seat"), () => api("POST", `/api/online/games/${encodeURIComponent(view.id)}/join`, color ? { color } : {}));
  if (!r) return;
  // The socket knows its player from when it opened: open it again as the seated player.
  connect();
}

function wireGame() {
  board.flipped = flipped();
  $("board").addEventListener("pointerdown", settleAnimation, { capture: true });
  $("board").addEventListener("keydown", settleAnimation, { capture: true });
  board.init();
  // Escape drops the move being entered: the status line says again whose move it is.
  $("board").addEventListener("keydown", (/** @type {KeyboardEvent} */ e) => { if (e.key === "Escape") setStatus(statusText()); });
  // The board's notes on the person's input (continue a capture, choose a route) go to the status line.
  board.note = (/** @type {string} */ text) => setStatus(text);
  /** @param {any} msg @param {string} path @param {any} [body] */
  const gameAction = (msg, path, body) => () => send(msg, () => api("POST", `/api/online/games/${view.id}/${path}`, body || {}));
  $("btn-flip").addEventListener("click", flipBoard);
  // A player reports the opponent from the game: the server keeps the game's chat with it.
  $("btn-game-report").addEventListener("click", () => {
    const opp = view.you && view.full && view.full[other(view.you)];
    if (opp) openReport(opp.name, view.id);
  });
  $("btn-seat").addEventListener("click", takeSeat);
  $("btn-share-copy").addEventListener("click", () => copyField($("share-url")));
  $("btn-withdraw").addEventListener("click", gameAction({ t: "abort" }, "abort"));
  // A finished game replayed: click a move, the buttons under the list, or the arrow keys.
  $("movelist").addEventListener("click", (e) => {
    const el = /** @type {HTMLElement} */ (e.target);
    if (el.dataset && el.dataset.ply) browseTo(Number(el.dataset.ply));
  });
  const here = () => (view.browse == null ? plies(view.state).length : view.browse);
  $("btn-browse-first").addEventListener("click", () => browseTo(0));
  $("btn-browse-prev").addEventListener("click", () => browseTo(here() - 1));
  $("btn-browse-next").addEventListener("click", () => browseTo(here() + 1));
  $("btn-browse-last").addEventListener("click", () => browseTo(Infinity));
  document.addEventListener("keydown", (/** @type {KeyboardEvent} */ e) => {
    const target = /** @type {HTMLElement} */ (e.target);
    if (!over(view.state) || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName)) return;
    const to = { ArrowLeft: here() - 1, ArrowRight: here() + 1, Home: 0, End: Infinity }[e.key];
    if (to === undefined) return;
    e.preventDefault();
    browseTo(to);
  });
  // Review: the game saved among this server's games, then opened in the main page's review.
  // Saved once: pressed again (or after a reload), the copy saved before is opened, as long as
  // it is still among the saved games.
  $("btn-review").addEventListener("click", async () => {
    const key = "damasi.online.reviewed." + view.id;
    const saved = Number(localStorage.getItem(key));
    if (saved > 0) {
      const there = await fetch(`/api/games/${saved}`).then((res) => res.ok, () => false);
      if (there) { location.href = "/#/review/" + saved; return; }
      localStorage.removeItem(key);
    }
    const r = await act($("btn-review"), async () => {
      const pdn = await fetch(`/api/online/games/${encodeURIComponent(view.id)}/pdn`).then((res) => res.text());
      return api("POST", "/api/pdn/import", { pdn });
    });
    if (r && r.ids && r.ids.length) {
      localStorage.setItem(key, String(r.ids[0]));
      location.href = "/#/review/" + r.ids[0];
    }
  });
  $("btn-abort").addEventListener("click", gameAction({ t: "abort" }, "abort"));
  $("btn-resign").addEventListener("click", () => { view.resignAsk = true; renderActions(); $("btn-resign-yes").focus(); });
  $("btn-resign-no").addEventListener("click", () => { view.resignAsk = false; renderActions(); });
  $("btn-resign-yes").addEventListener("click", () => { view.resignAsk = false; renderActions(); gameAction({ t: "resign" }, "resign")(); });
  $("btn-draw").addEventListener("click", gameAction({ t: "draw", yes: true }, "draw/yes"));
  $("btn-draw-yes").addEventListener("click", gameAction({ t: "draw", yes: true }, "draw/yes"));
  $("btn-draw-no").addEventListener("click", gameAction({ t: "draw", yes: false }, "draw/no"));
  $("btn-takeback").addEventListener("click", gameAction({ t: "takeback", yes: true }, "takeback/yes"));
  $("btn-takeback-yes").addEventListener("click", gameAction({ t: "takeback", yes: true }, "takeback/yes"));
  $("btn-takeback-no").addEventListener("click", gameAction({ t: "takeback", yes: false }, "takeback/no"));
  $("btn-claim-win").addEventListener("click", gameAction({ t: "claim", win: true }, "claim", { win: true }));
  $("btn-claim-draw").addEventListener("click", gameAction({ t: "claim", win: false }, "claim", { win: false }));
  $("btn-rematch").addEventListener("click", gameAction({ t: "rematch" }, "rematch"));
  // Sound is the main page's setting (settings.js): one switch for both pages.
  $("sound").addEventListener("change", () => setSetting("sound", $("sound").checked));
  $("chat-hide").addEventListener("change", () => {
    localStorage.setItem(chatKey(), $("chat-hide").checked ? "1" : "0");
    renderChatHidden();
  });
  $("chat-form").addEventListener("submit", (/** @type {Event} */ e) => {
    e.preventDefault();
    const text = $("chat-input").value.trim();
    if (!text) return;
    $("chat-input").value = "";
    send({ t: "chat", text }, () => api("POST", `/api/online/games/${view.id}/chat`, { text }));
  });
  socket.onMessage = onSocketMessage;
  socket.onFull = applyFull;
  socket.onState = (s) => applyState(s);
  socket.onRefused = refused;
  wireReconnects();
  watchSilence(() => running(view.state));
  // The clocks count down between two states of the server, and a claim's wait runs out.
  setInterval(() => {
    renderClocks();
    lowTimeSound();
    if (view.claimAt) renderActions();
  }, 100);
}

/** Turns the board (the F key, the Flip button). */
export function flipBoard() {
  view.flip = !view.flip;
  renderGame();
}

/** Draws the game again (in another language). */
export function redrawGame() {
  if (!view.state) return;
  renderGame();
  renderChat();
  setStatus(statusText());
}

/** Opens the game `id`: its board and panels, then its socket. @param {string} id */
export async function startGame(id) {
  view.id = id;
  $("game-view").hidden = false;
  $("game-panel").hidden = false;
  $("link-lobby").removeAttribute("aria-current");
  document.title = t("onTitleGame", { id });
  wireGame();
  $("chat-hide").checked = chatHidden();
  renderChatHidden();
  session.drawn = () => { $("chat-hide").checked = chatHidden(); renderChatHidden(); };
  session.changed = () => {
    if (view.full) { view.you = seatedAs(view.full); renderGame(); renderChat(); }
    $("chat-hide").checked = chatHidden();
    renderChatHidden();
    connect();
  };
  try {
    applyFull(await api("GET", `/api/online/games/${encodeURIComponent(id)}`));
  } catch (e) {
    if (e instanceof ApiError && e.status === 404) {
      setStatus(errorText(e) + ".");
      $("game-panel").hidden = true;
      return;
    }
    showError(e);
  }
  connect();
}
