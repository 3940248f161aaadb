// The study view: free analysis of a position and a line played from it, with the engine's
// evaluation and, when the server has tables for it, the endgame tables' verdict.
import { $ } from "../util.js";
import { t, sideName, outcomeText, announce } from "../i18n.js";
import { api, errorText, showError } from "../api.js";
import { parseFen } from "../position.js";
import { board } from "../board/index.js";
import { S, study } from "../state.js";
import { moveText, renderMoveList, renderStatus } from "./play.js";
import { syncUrl } from "../router.js";

// ---------------------------------------------------------------------------------------------
// Study: free analysis of a position and a line played from it


export function studyFen() { return study.idx === 0 ? study.start : study.line[study.idx - 1].fen; }
// The line's moves up to the shown position (the server counts them for repetitions).
export function studyMoves() { return study.line.slice(0, study.idx).map((p) => p.move.landing); }

export async function studyShow() {
  const fen = studyFen();
  $("fen-input").value = fen;
  const seq = ++study.seq;
  try {
    const v = await api("GET", "/api/moves?fen=" + encodeURIComponent(fen));
    if (seq !== study.seq) return;
    study.legal = v.moves;
    study.outcome = v.outcome;
    S.statusNote = v.outcome.over ? outcomeText(v.outcome) : t("toMove", { side: sideName(v.side) });
  } catch (e) { showError(e); study.legal = []; }
  if (S.mode !== "study" || study.editing) return;
  board.set(fen, {
    moves: study.legal,
    onMove: studyMove,
    last: study.idx > 0 ? [study.line[study.idx - 1].move.from, ...study.line[study.idx - 1].move.route] : null,
  });
  renderMoveList($("st-moves"), study.line, study.start, study.idx, (n) => { study.idx = n; studyShow(); }, null);
  renderStatus();
  syncUrl("replace");
  analyze(fen, seq);
  tablebasePanel(fen, seq);
}

export async function studyMove(m, opts = {}) {
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

export function scoreText(a) {
  if (a.mate !== null && a.mate !== undefined) return t(a.mate > 0 ? "mateIn" : "lossIn", { n: Math.abs(a.mate) });
  const s = a.white_score / 100;
  return (s > 0 ? "+" : "") + s.toFixed(2);
}

let analyzeTimer = null;
let analyzeAbort = null;
export function analyze(fen, seq) {
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

export function setEval(frac) {
  // frac: -1 (Black winning) .. 1 (White winning)
  $("evalfill").style.height = (50 + 50 * frac).toFixed(1) + "%";
  $("evalbar").classList.toggle("flipped", board.flipped);
}

// ---------------------------------------------------------------------------------------------
// Study: the endgame tables' value of the position and of each legal move (GET /api/tablebase),
// shown only when the server has tables that cover the position.

let tbAbort = null;
export async function tablebasePanel(fen, seq) {
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


// Stops the analysis of a position no longer shown (another view, the editor).
export function stopAnalysis() {
  if (analyzeAbort) analyzeAbort.abort();
}

// The line an address names (#/study?fen=...&moves=...): its start, then its moves one by one
// through the server, which checks each.
/** @param {string} fen @param {string[]} moves */
export async function loadLine(fen, moves) {
  try {
    const v = await api("GET", "/api/moves?fen=" + encodeURIComponent(fen));
    study.start = v.fen; study.line = []; study.idx = 0;
    for (const move of moves) {
      const res = await api("POST", "/api/move", { fen: study.start, moves: study.line.map((p) => p.move.landing), move });
      study.line.push({ move: res.move, fen: res.position.fen });
    }
  } catch (e) { showError(e); }
  study.idx = study.line.length;
}

/** The address of the shown study position: its start and the moves to it. */
export function studyUrl() {
  const q = new URLSearchParams({ fen: study.start || "" });
  const moves = studyMoves();
  if (moves.length) q.set("moves", moves.join(","));
  return "#/study?" + q.toString();
}
