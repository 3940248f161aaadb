// The Review view (#/review/<game id>): a saved game (finished, or imported from PDN) analysed
// move by move. The page asks the server's engine about every position in turn (POST
// /api/analyze with a short time each, one request at a time, so the shared engines stay free
// for others), and shows as the answers come: a progress bar, a graph of White's winning
// chances, each move marked ?! (inaccuracy), ? (mistake) or ?? (blunder) with the better move
// drawn as an arrow, an accuracy for each side, and "Learn from your mistakes": the positions
// where the player went wrong, to find a better move in.
//
// Winning chances and marks (docs/web-api.md, "Game review", says the same):
// - the chance of the side to move, from the engine's score s (a man is worth about 100):
//   W(s) = 1 / (1 + e^(-s/100)); a won (lost) position by the engine's count is 1 (0);
// - a move loses W(before, mover) − W(after, mover), at least 0, and nothing when it is the
//   engine's own choice; it is an inaccuracy from a loss of 6 points in 100, a mistake from
//   12, a blunder from 18 (a man given for nothing in an even position is about 23);
// - a move's accuracy is 100·e^(−5·loss) (100 for a loss of 0, 55 for a mistake of 12), and a
//   side's accuracy the mean over its moves.
import { $, sleep } from "../util.js";
import { t, sideName, announce, gameOutcomeText } from "../i18n.js";
import { api, errorText, transient } from "../api.js";
import { Plies } from "../plies.js";
import { parseFen } from "../position.js";
import { board } from "../board/index.js";
import { setShapes } from "../board/shapes.js";
import { S } from "../state.js";
import { moveNumber, moveText, renderMoveList, setStatusNote } from "./play.js";
import { playerShort } from "./games.js";
import { syncUrl } from "../router.js";

/** Engine time per position, in milliseconds. */
export const MOVE_TIME_MS = 250;
/** The losses of winning chance (0..1) from which a move is marked. */
export const THRESHOLDS = { inaccuracy: 0.06, mistake: 0.12, blunder: 0.18 };
const SYMBOL = { inaccuracy: "?!", mistake: "?", blunder: "??" };

/** The side to move's winning chance for the engine's score `s`. @param {number} s */
export const winChance = (s) => 1 / (1 + Math.exp(-s / 100));
/** A move's accuracy (0..100) from its loss of winning chance (0..1). @param {number} loss */
export const moveAccuracy = (loss) => 100 * Math.exp(-5 * loss);

/**
 * @typedef {{wc: number, best: any, score: number, mate: number|null}} PositionResult
 *   `wc`: White's winning chance; `best`: the engine's move (null when the game is over)
 * @typedef {{loss: number, mark: string, best: any, mover: string}} Verdict
 */

export const review = {
  id: 0,
  /** @type {any} the game as GET /api/games/{id} answers it, every ply loaded */ game: null,
  error: "",
  /** @type {PositionResult[]} by position (0 = the start) */ results: [],
  done: false,
  running: false,
  /** @type {AbortController|null} */ abort: null,
  idx: 0,
  /** @type {{list: number[], k: number, state: "ask"|"busy"|"right"|"wrong"|"shown", fen: string, legal: any[], text: string}|null} */
  learn: null,
  /** @type {boolean|null} the board's side before the review turned it (put back on leaving) */
  flippedBefore: null,
};

// ---------------------------------------------------------------------------------------------
// The analysis kept in this browser: another visit to the same game shows it at once.

const STORE_KEY = "damasi.reviews";
/** Most reviews kept (the oldest go first), and the longest game kept. */
const STORE_MAX = 20, STORE_MAX_PLIES = 1000;

/** What identifies a game's analysis: its rules, start, moves and the engine time. @param {any} g */
function signature(g) {
  return [g.rules || "turkish", g.start_fen, MOVE_TIME_MS, g.plies.map((p) => p.move.landing).join(",")].join("|");
}

/** @returns {Record<string, {sig: string, at: number, results: any[]}>} */
function stored() {
  try {
    const v = JSON.parse(localStorage.getItem(STORE_KEY) || "{}");
    return v && typeof v === "object" ? v : {};
  } catch (_) { return {}; }
}

/** The analysis of `g` kept from an earlier visit, if the game is still the same. @param {any} g */
function keptResults(g) {
  const e = stored()[String(g.id)];
  return e && e.sig === signature(g) && Array.isArray(e.results) ? e.results : [];
}

/** Keeps the analysis so far of the reviewed game. */
function keepResults() {
  const g = review.game;
  if (!g || g.plies.length > STORE_MAX_PLIES) return;
  const all = stored();
  const small = (m) => (m ? { landing: m.landing, captured: m.captured, from: m.from, to: m.to, route: m.route } : null);
  all[String(g.id)] = {
    sig: signature(g), at: Date.now(),
    results: review.results.map((r) => (r ? { ...r, best: small(r.best) } : null)),
  };
  const ids = Object.keys(all).sort((a, b) => all[b].at - all[a].at);
  for (const id of ids.slice(STORE_MAX)) delete all[id];
  try { localStorage.setItem(STORE_KEY, JSON.stringify(all)); } catch (_) { /* full: not kept */ }
}

export const reviewUrl = () => (review.id ? `#/review/${review.id}` : "#/games");

/** Opens the review of game `rest` (its id, from the address). @param {string} rest */
export async function enterReview(rest) {
  const id = Number(rest);
  // The same game again: its analysis so far is kept, unless the game has moved on since.
  const changed = S.game && S.game.id === id && review.game && S.game.version !== review.game.version;
  if (id && id === review.id && review.game && !changed) return;
  stopReview();
  Object.assign(review, { id: id || 0, game: null, error: "", results: [], done: false, running: false, idx: 0, learn: null });
  if (!Number.isInteger(id) || id <= 0) { review.error = t("reviewBadId", { id: rest }); return; }
  try {
    const g = await api("GET", `/api/games/${id}`);
    // A long game comes in pages: every page is needed.
    for (let k; (k = Plies.lastMissingBefore(g, g.plies.length)) >= 0;) {
      if (!(await Plies.load(g, k, (path) => api("GET", path)))) throw new Error(t("reviewChanged"));
    }
    if (review.id !== id) return;
    review.game = g;
    review.idx = g.plies.length;
    review.results = keptResults(g);
    review.done = review.results.length === g.plies.length + 1 && review.results.every(Boolean);
  } catch (e) {
    if (review.id === id) review.error = errorText(e);
  }
}

/** Stops the analysis (another view is shown); it goes on from there when the review is shown again. */
export function stopReview() {
  if (review.abort) review.abort.abort();
  if (review.running) keepResults();
  review.abort = null;
  review.running = false;
  setShapes(board.el, []);
  if (review.flippedBefore !== null && board.flipped !== review.flippedBefore) board.setFlipped(review.flippedBefore);
  review.flippedBefore = null;
}

/** The side the person played, when one side was the engine: the board is turned for it. @param {any} g */
function personSide(g) {
  const engine = (p) => p && p.kind === "engine";
  if (engine(g.white) && !engine(g.black)) return "black";
  return "white";
}

const fenAt = (i) => (i === 0 ? review.game.start_fen : review.game.plies[i - 1].fen);
const moverAt = (i) => (parseFen(fenAt(i)).side === "W" ? "white" : "black");
const landings = (n) => review.game.plies.slice(0, n).map((p) => p.move.landing);

/** White's winning chance from an analysis of a position. @param {any} a @param {boolean} whiteToMove */
function whiteChance(a, whiteToMove) {
  let mover;
  if (a.mate !== null && a.mate !== undefined) mover = a.mate > 0 ? 1 : 0;
  else mover = winChance(a.score);
  return whiteToMove ? mover : 1 - mover;
}

/** The verdict on move `i` (from position i to i + 1), once both positions are analysed. @param {number} i @returns {Verdict|null} */
export function verdict(i) {
  const a = review.results[i], b = review.results[i + 1];
  if (!a || !b) return null;
  const mover = moverAt(i);
  const own = (r) => (mover === "white" ? r.wc : 1 - r.wc);
  let loss = Math.max(0, own(a) - own(b));
  if (a.best && a.best.landing === review.game.plies[i].move.landing) loss = 0;
  const mark = loss >= THRESHOLDS.blunder ? "blunder" : loss >= THRESHOLDS.mistake ? "mistake" : loss >= THRESHOLDS.inaccuracy ? "inaccuracy" : "";
  return { loss, mark, best: a.best, mover };
}

/** Each side's accuracy (null before it has an analysed move) and its marked moves. */
export function sideSummary() {
  const out = {};
  for (const side of ["white", "black"]) out[side] = { sum: 0, n: 0, inaccuracy: 0, mistake: 0, blunder: 0 };
  for (let i = 0; i < review.game.plies.length; i++) {
    const v = verdict(i);
    if (!v) continue;
    const s = out[v.mover];
    s.sum += moveAccuracy(v.loss); s.n++;
    if (v.mark) s[v.mark]++;
  }
  for (const side of ["white", "black"]) out[side].accuracy = out[side].n ? Math.round(out[side].sum / out[side].n) : null;
  return out;
}

// ---------------------------------------------------------------------------------------------
// The analysis, one position after the other

async function runAnalysis() {
  if (review.running || review.done || !review.game) return;
  const g = review.game;
  review.running = true;
  const abort = new AbortController();
  review.abort = abort;
  let failures = 0;
  try {
    for (let i = 0; i <= g.plies.length; i++) {
      if (review.results[i]) continue;
      let a;
      try {
        a = await api("POST", "/api/analyze", { fen: g.start_fen, moves: landings(i), rules: g.rules || "turkish", move_time_ms: MOVE_TIME_MS }, abort.signal);
      } catch (e) {
        // A busy or restarting server: a few more tries, then the reason on the panel.
        if (e.name !== "AbortError" && transient(e) && ++failures <= 5) { await sleep(800 * failures); i--; continue; }
        throw e;
      }
      if (review.game !== g || abort.signal.aborted) return;
      review.results[i] = { wc: whiteChance(a, moverAt(i) === "white"), best: a.best, score: a.white_score, mate: a.mate ?? null };
      if (i % 10 === 9) keepResults();
      if (S.mode === "review") renderAnalysis();
    }
    review.done = true;
    keepResults();
    if (S.mode === "review") { renderAnalysis(); renderLearnBox(); announce(t("reviewDone")); }
  } catch (e) {
    if (e.name === "AbortError" || review.game !== g) return;
    review.error = errorText(e);
    if (S.mode === "review") reviewShow();
  } finally {
    if (review.abort === abort) { review.running = false; review.abort = null; }
  }
}

// ---------------------------------------------------------------------------------------------
// Drawing

export function reviewShow() {
  const err = $("rv-error");
  err.hidden = !review.error;
  err.textContent = review.error;
  $("rv-body").hidden = !review.game;
  if (!review.game) { board.set(board.fen, {}); setShapes(board.el, []); setStatusNote(""); return; }
  const g = review.game;
  // The person's side plays up the board (against the engine as Black: turned round).
  if (review.flippedBefore === null) {
    review.flippedBefore = board.flipped;
    const flip = personSide(g) === "black";
    if (board.flipped !== flip) board.setFlipped(flip);
  }
  const name = (side, tag) => (g.tags && g.tags[tag]) || g[side + "_name"] || playerShort(g[side]);
  $("rv-players").textContent = `${name("white", "White")} – ${name("black", "Black")}`
    + (g.outcome && g.outcome.over ? ` · ${g.outcome.result} · ${gameOutcomeText(g)}` : "");
  $("rv-name-white").textContent = sideName("white");
  $("rv-name-black").textContent = sideName("black");
  renderAnalysis();
  renderLearnBox();
  runAnalysis();
  syncUrl("replace");
}

/** The progress bar, the graph, the accuracies, the move list and the board. */
function renderAnalysis() {
  const g = review.game;
  const total = g.plies.length + 1;
  const have = review.results.filter(Boolean).length;
  const bar = $("rv-bar");
  bar.max = total; bar.value = have;
  $("rv-progress").dataset.done = String(review.done);
  $("rv-progress-text").textContent = review.done ? t("reviewDone") : t("reviewProgress", { n: have, total });
  renderGraph();
  const sum = sideSummary();
  for (const side of ["white", "black"]) {
    const s = sum[side];
    $("rv-acc-" + side).textContent = s.accuracy === null ? "–" : s.accuracy + "%";
    $("rv-marks-" + side).textContent = t("reviewCounts", { i: s.inaccuracy, m: s.mistake, b: s.blunder });
  }
  if (!review.learn) renderPosition();
}

function renderGraph() {
  const g = review.game;
  const n = g.plies.length;
  const W = 600, H = 120;
  const svg = $("rv-graph");
  const x = (i) => (n ? (i / n) * W : W / 2);
  const y = (wc) => H - wc * H;
  const pts = [];
  for (let i = 0; i <= n; i++) if (review.results[i]) pts.push([i, review.results[i].wc]);
  let html = `<rect class="bg" x="0" y="0" width="${W}" height="${H}"/><line class="mid" x1="0" x2="${W}" y1="${H / 2}" y2="${H / 2}"/>`;
  if (pts.length) {
    const line = pts.map(([i, wc]) => `${x(i).toFixed(1)},${y(wc).toFixed(1)}`).join(" ");
    html += `<polygon class="area" points="${x(pts[0][0]).toFixed(1)},${H} ${line} ${x(pts[pts.length - 1][0]).toFixed(1)},${H}"/>`;
    html += `<polyline class="curve" points="${line}"/>`;
  }
  html += `<line class="cursor" x1="${x(review.idx)}" x2="${x(review.idx)}" y1="0" y2="${H}"/>`;
  // One point per ply: the position after it, coloured by the mark of the move.
  for (const [i, wc] of pts) {
    if (i === 0) continue;
    const v = verdict(i - 1);
    const mark = v && v.mark ? v.mark : "";
    html += `<circle class="pt ${mark}" data-ply="${i}" cx="${x(i).toFixed(1)}" cy="${y(wc).toFixed(1)}" r="${mark ? 5 : 2.5}"><title>${i}</title></circle>`;
  }
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
  svg.innerHTML = html;
}

/** The board and the move list at position `review.idx`. */
function renderPosition() {
  const g = review.game;
  const i = review.idx;
  const last = i > 0 ? g.plies[i - 1].move : null;
  board.set(fenAt(i), { last: last ? [last.from, ...last.route] : null });
  renderMoveList($("rv-moves"), g.plies, g.start_fen, i, goTo, g.outcome && g.outcome.over ? g.outcome.result : null);
  for (const b of $("rv-moves").querySelectorAll("button[data-ply]")) {
    const v = verdict(Number(b.dataset.ply) - 1);
    if (!v || !v.mark) continue;
    b.classList.add("mark-" + v.mark);
    const s = document.createElement("span");
    s.className = "mark";
    s.textContent = SYMBOL[v.mark];
    b.appendChild(s);
  }
  const v = i > 0 ? verdict(i - 1) : null;
  const comment = $("rv-comment");
  comment.className = "rvcomment" + (v && v.mark ? " " + v.mark : "");
  if (!last) comment.textContent = t("reviewStart");
  else if (!v) comment.textContent = moveText(last) + " · " + t("reviewWaiting");
  else if (!v.mark) comment.textContent = moveText(last) + " · " + t(v.best && v.best.landing === last.landing ? "reviewBest" : "reviewGood");
  else comment.textContent = `${moveText(last)}${SYMBOL[v.mark]} ${t("mark:" + v.mark)} (−${Math.round(v.loss * 100)}%)`
    + (v.best ? " · " + t("reviewBetter", { move: moveText(v.best) }) : "");
  setShapes(board.el, v && v.mark && v.best ? [arrowOf(v.best, "green")] : []);
  setStatusNote(last ? t("reviewAtMove", { n: moveNumber(g.start_fen, i), side: sideName(v ? v.mover : moverAt(i - 1)) }) : "");
}

/** A move as an arrow (through its landing squares when it captures several). @param {any} m @param {string} brush */
export const arrowOf = (m, brush) => ({ from: m.from, to: m.to, via: m.route.slice(0, -1), brush });

/** Shows position `n` (0 = the start). @param {number} n */
export function goTo(n) {
  if (!review.game || review.learn) return;
  review.idx = Math.max(0, Math.min(review.game.plies.length, n));
  renderGraph();
  renderPosition();
}

/** The ply under a click on the graph. @param {MouseEvent} e */
export function graphClick(e) {
  if (!review.game) return;
  const r = /** @type {Element} */ ($("rv-graph")).getBoundingClientRect();
  const n = review.game.plies.length;
  goTo(Math.round(((e.clientX - r.left) / r.width) * n));
}

// ---------------------------------------------------------------------------------------------
// Learn from your mistakes

/** The sides whose mistakes are asked: the people's (both when no side is a person). */
function learnerSides() {
  const g = review.game;
  const people = ["white", "black"].filter((s) => !g[s] || g[s].kind !== "engine");
  return people.length ? people : ["white", "black"];
}

/** The plies where a learner made a mistake or a blunder. */
export function mistakes() {
  const sides = learnerSides();
  const out = [];
  for (let i = 0; i < review.game.plies.length; i++) {
    const v = verdict(i);
    if (v && (v.mark === "mistake" || v.mark === "blunder") && sides.includes(v.mover)) out.push(i);
  }
  return out;
}

function renderLearnBox() {
  const start = $("rv-learn");
  const box = $("rv-learnbox");
  const list = review.done ? mistakes() : [];
  start.disabled = !review.done || !list.length;
  start.hidden = !!review.learn;
  $("rv-learn-none").hidden = !review.done || !!list.length;
  box.hidden = !review.learn;
  const l = review.learn;
  if (!l) return;
  const i = l.list[l.k];
  $("rv-learn-task").textContent = t("learnMistakeTask", { n: l.k + 1, total: l.list.length, side: sideName(moverAt(i)), move: moveText(review.game.plies[i].move) });
  const fb = $("rv-learn-feedback");
  fb.hidden = !l.text;
  fb.textContent = l.text;
  fb.className = "feedback" + (l.state === "right" ? " right" : l.state === "wrong" ? " wrong" : "");
  $("rv-learn-answer").hidden = l.state === "right" || l.state === "shown";
  $("rv-learn-next").textContent = t(l.k + 1 < l.list.length ? "nextMistake" : "finish");
}

/** Starts going through the player's mistakes. */
export function startLearning() {
  const list = mistakes();
  if (!list.length) return;
  review.learn = { list, k: 0, state: "ask", fen: "", legal: [], text: "" };
  askMistake();
}

export function stopLearning() {
  if (!review.learn) return;
  review.learn = null;
  renderLearnBox();
  renderPosition();
}

export function nextMistake() {
  const l = review.learn;
  if (!l) return;
  if (l.k + 1 >= l.list.length) { stopLearning(); return; }
  l.k++;
  askMistake();
}

async function askMistake() {
  const l = review.learn;
  if (!l) return;
  const i = l.list[l.k];
  l.state = "ask"; l.text = ""; l.fen = fenAt(i);
  review.idx = i;
  renderGraph();
  renderLearnBox();
  try {
    l.legal = (await api("GET", `/api/moves?fen=${encodeURIComponent(l.fen)}&rules=${encodeURIComponent(review.game.rules || "turkish")}`)).moves;
  } catch (e) { l.legal = []; l.text = errorText(e); l.state = "wrong"; }
  if (review.learn !== l || S.mode !== "review") return;
  setBoardForTry();
}

function setBoardForTry() {
  const l = review.learn;
  const i = l.list[l.k];
  const prev = i > 0 ? review.game.plies[i - 1].move : null;
  board.set(l.fen, { moves: l.state === "ask" || l.state === "wrong" ? l.legal : [], onMove: tryMove, last: prev ? [prev.from, ...prev.route] : null });
  setShapes(board.el, l.state === "shown" ? [arrowOf(review.results[i].best, "green")] : []);
  setStatusNote(t("learnFindBetter", { side: sideName(moverAt(i)) }));
  renderLearnBox();
}

/**
 * The person's try: right when it is the engine's move, or when the engine, searching both
 * side by side, scores it about as well (less than an inaccuracy's loss); never the game's
 * move.
 * @param {any} m @param {{dragged?: boolean}} [opts]
 */
async function tryMove(m, opts = {}) {
  const l = review.learn;
  if (!l || l.state === "busy") return;
  const i = l.list[l.k];
  const best = review.results[i].best;
  // The last try's verdict goes while this one is judged.
  l.state = "busy"; l.text = "";
  renderLearnBox();
  board.moves = []; board.onMove = null;
  const animation = board.animate(m, null, opts.dragged);
  let right = false, text = "";
  try {
    if (best && m.landing === best.landing) right = true;
    else if (best && m.landing !== review.game.plies[i].move.landing) {
      // The engine's move and the try searched side by side, in one search of the position
      // before them: their scores come from the same depth, so they compare.
      const g = review.game;
      const a = await api("POST", "/api/analyze", {
        fen: g.start_fen, moves: landings(i), rules: g.rules || "turkish", move_time_ms: MOVE_TIME_MS * 2,
        searchmoves: [best.landing, m.landing], multipv: 2,
      });
      const chance = (landing) => {
        const line = (a.lines || []).find((l) => l.move.landing === landing);
        return line ? whiteChance(line, true) : null; // the side to move's chance
      };
      const [ofBest, ofTry] = [chance(best.landing), chance(m.landing)];
      right = ofBest !== null && ofTry !== null && ofBest - ofTry < THRESHOLDS.inaccuracy;
    }
    text = right ? (best && m.landing === best.landing ? t("learnRightBest") : t("learnRightToo", { move: moveText(best) })) : t("learnWrong");
  } catch (e) { text = errorText(e); }
  await animation;
  if (review.learn !== l) return;
  l.state = right ? "right" : "wrong";
  l.text = text;
  announce(text);
  if (right) {
    board.moves = [];
    renderLearnBox();
    setStatusNote(text);
  } else {
    await sleep(350);
    if (review.learn === l) setBoardForTry();
  }
}

export function showAnswer() {
  const l = review.learn;
  if (!l || !review.results[l.list[l.k]].best) return;
  l.state = "shown";
  l.text = t("learnAnswer", { move: moveText(review.results[l.list[l.k]].best) });
  setBoardForTry();
}
