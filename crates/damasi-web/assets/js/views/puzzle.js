// The Puzzles view: a puzzle near the player's puzzle rating (GET /api/puzzles), solved move
// by move. The solution stays on the server: each attempt (POST /api/puzzles/{id}/attempt)
// says right or wrong, plays the opponent's reply and, at the end, rates the player.
import { $ } from "../util.js";
import { t, sideName, announce } from "../i18n.js";
import { api, showError } from "../api.js";
import { board } from "../board/index.js";
import { S } from "../state.js";
import { setStatusNote } from "./play.js";
import { syncUrl } from "../router.js";
import { Local } from "../local.js";

const RATING_KEY = "damasi.puzzle.rating";
const NEW_PLAYER = { rating: 1500, deviation: 350, volatility: 0.06 };

/** The player's puzzle rating, kept in this browser. */
export function playerRating() {
  try {
    const r = JSON.parse(localStorage.getItem(RATING_KEY) || "null");
    if (r && [r.rating, r.deviation, r.volatility].every((v) => typeof v === "number" && isFinite(v))) return r;
  } catch (_) { /* a broken value: a new player */ }
  return { ...NEW_PLAYER };
}

export const puzzle = {
  /** @type {any} the puzzle as GET /api/puzzles answers it */ data: null,
  /** @type {string[]} the solving side's moves so far */ moves: [],
  fen: "",
  /** @type {any[]} */ legal: [],
  /** @type {null|"solved"|"failed"} */ result: null,
  /** whether the last move was right and the puzzle goes on (the page says "correct") */ correct: false,
  /** a retry after a failure: solved or not, it changes no rating */ retry: false,
  /** @type {number|null} the rating change of the ended attempt */ change: null,
  /** @type {any} the right move after a wrong one */ expected: null,
  busy: false,
  /** @type {string[]|null} the opponent's reply, marked */ last: null,
  /** @type {string[]} puzzles seen in this page, not offered again soon */ seen: [],
  flippedBefore: /** @type {boolean|null} */ (null),
};

export function puzzleUrl() { return puzzle.data ? `#/puzzle/${puzzle.data.id}` : "#/puzzle"; }

/** @param {any} p */
function take(p) {
  puzzle.data = p;
  puzzle.moves = []; puzzle.fen = p.fen; puzzle.result = null; puzzle.change = null; puzzle.expected = null; puzzle.last = null;
  puzzle.correct = false; puzzle.retry = false;
  if (!puzzle.seen.includes(p.id)) puzzle.seen = [...puzzle.seen, p.id].slice(-20);
}

/** Opens the puzzle `id`, or (without one) a puzzle near the player's rating. @param {string} [id] */
export async function enterPuzzle(id) {
  // The exported page has no server, and puzzles are the server's: the panel says so.
  if (Local.noServer) return;
  try {
    if (id) { if (!puzzle.data || puzzle.data.id !== id) take(await api("GET", "/api/puzzles/" + encodeURIComponent(id))); }
    else if (!puzzle.data) await fetchNext();
  } catch (e) { showError(e); }
}

async function fetchNext() {
  const r = Math.round(playerRating().rating);
  const ex = puzzle.seen.length ? "&exclude=" + puzzle.seen.join(",") : "";
  take(await api("GET", `/api/puzzles?rating=${r}${ex}`));
}

/** After a wrong move: the same puzzle again from its start; its rating is not changed again. */
export async function retryPuzzle() {
  if (!puzzle.data || puzzle.result !== "failed" || puzzle.busy) return;
  take(puzzle.data);
  puzzle.retry = true;
  await puzzleShow();
}

export async function nextPuzzle() {
  try { await fetchNext(); } catch (e) { showError(e); return; }
  await puzzleShow();
  syncUrl("push");
}

export async function puzzleShow() {
  $("pz-no-server").hidden = !Local.noServer;
  $("pz-body").hidden = Local.noServer;
  if (!puzzle.data) await enterPuzzle();
  const p = puzzle.data;
  if (!p || S.mode !== "puzzle") return;
  // The solving side plays up the board.
  if (puzzle.flippedBefore === null) puzzle.flippedBefore = board.flipped;
  if (board.flipped !== (p.side === "black")) board.setFlipped(p.side === "black");
  renderInfo();
  await setPosition();
  syncUrl("replace");
}

// Puts the board back as the view found it.
export function puzzleLeave() {
  if (puzzle.flippedBefore !== null && board.flipped !== puzzle.flippedBefore) board.setFlipped(puzzle.flippedBefore);
  puzzle.flippedBefore = null;
}

function renderInfo() {
  const p = puzzle.data;
  const me = playerRating();
  $("pz-rating").textContent = String(p.rating);
  $("pz-player").textContent = String(Math.round(me.rating));
  const ch = $("pz-change");
  ch.hidden = puzzle.change === null;
  if (puzzle.change !== null) {
    const d = Math.round(puzzle.change);
    ch.textContent = (d >= 0 ? "+" : "−") + Math.abs(d);
    ch.className = d >= 0 ? "up" : "down";
  }
  $("pz-task").textContent = t("puzzleTask", { side: sideName(p.side), n: p.moves });
  const fb = $("pz-feedback");
  fb.classList.remove("right", "wrong");
  if (puzzle.result === "solved") { fb.hidden = false; fb.classList.add("right"); fb.textContent = t("puzzleSolved"); }
  else if (puzzle.correct) { fb.hidden = false; fb.classList.add("right"); fb.textContent = t("puzzleCorrect"); }
  else if (puzzle.result === "failed") {
    fb.hidden = false; fb.classList.add("wrong");
    fb.textContent = t("puzzleFailed", { move: puzzle.expected ? puzzle.expected.landing : "?" });
  } else fb.hidden = true;
  $("pz-retry").hidden = puzzle.result !== "failed";
}

async function setPosition() {
  const fen = puzzle.fen;
  let legal = [];
  if (!puzzle.result) {
    try { legal = (await api("GET", "/api/moves?fen=" + encodeURIComponent(fen))).moves; } catch (e) { showError(e); }
    if (fen !== puzzle.fen || S.mode !== "puzzle") return;
  }
  board.set(fen, { moves: legal, onMove: puzzle.result ? null : puzzleMove, last: puzzle.last });
  if (puzzle.expected) { board.hintMove = puzzle.expected; board.hint = [puzzle.expected.from, puzzle.expected.to]; board.drawMarks(); }
  setStatusNote(puzzle.result ? "" : t("yourMove", { side: sideName(puzzle.data.side) }));
}

async function puzzleMove(m, opts = {}) {
  const p = puzzle.data;
  if (puzzle.busy || !p) return;
  puzzle.busy = true;
  try {
    const animation = board.animate(m, null, opts.dragged);
    // No other move until the answer (and the opponent's reply) is on the board.
    board.moves = []; board.onMove = null;
    const before = playerRating();
    // A retry is practice: its end changes no rating.
    const body = puzzle.retry ? { moves: [...puzzle.moves, m.landing] } : { moves: [...puzzle.moves, m.landing], player: before };
    puzzle.correct = false;
    const res = await api("POST", `/api/puzzles/${p.id}/attempt`, body);
    await animation;
    if (puzzle.data !== p) return;
    if (res.player) {
      localStorage.setItem(RATING_KEY, JSON.stringify(res.player));
      puzzle.change = res.player.rating - before.rating;
    }
    if (!res.correct) {
      puzzle.result = "failed";
      puzzle.expected = res.expected;
      puzzle.fen = res.fen;
      announce(t("puzzleFailed", { move: res.expected ? res.expected.landing : "?" }));
    } else {
      puzzle.moves.push(m.landing);
      if (res.complete) {
        puzzle.result = "solved";
        puzzle.fen = res.fen;
        announce(t("puzzleSolved"));
      } else if (res.reply) {
        // A right move of a longer puzzle: said at once, before the opponent's reply.
        puzzle.correct = true;
        renderInfo();
        announce(t("puzzleCorrect"));
        setStatusNote(t("opponentReplies"));
        await board.animate(res.reply, res.fen);
        puzzle.fen = res.fen;
        puzzle.last = [res.reply.from, ...res.reply.route];
      }
    }
    if (S.mode !== "puzzle") return;
    renderInfo();
    // After the last right move the board keeps it as played.
    if (puzzle.result === "solved") { board.set(res.fen, { last: [m.from, ...m.route] }); setStatusNote(""); }
    else await setPosition();
  } catch (e) { showError(e); if (puzzle.data === p) await setPosition(); }
  finally { puzzle.busy = false; }
}
