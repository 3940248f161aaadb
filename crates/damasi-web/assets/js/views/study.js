// The study view: free analysis of a position and the moves played from it, kept as a tree
// (tree.js: a main line and variations, as lichess's analysis board), with the engine's
// evaluation, its best lines when the analysis is on (several lines, deepening while the
// position stays), when the server has tables for it, the endgame tables' verdict, and the
// opening explorer's moves (explorer.js).
import { $ } from "../util.js";
import { t, sideName, outcomeText, announce, toast } from "../i18n.js";
import { api, errorText, showError, showFenError, transient } from "../api.js";
import { parseFen, START_FEN } from "../position.js";
import { board } from "../board/index.js";
import { setShapes } from "../board/shapes.js";
import { S, study } from "../state.js";
import { moveText, moveRow, renderStatus } from "./play.js";
import { syncUrl } from "../router.js";
import { explorerPanel } from "./explorer.js";
import {
  addMove, createTree, deleteFrom, followMoves, mainContinuation, nodeOf, onMainLine, pathTo,
  promoteToMainLine, siblingPath, textToTree, treeToPdn, treeToText,
} from "../tree.js";

// ---------------------------------------------------------------------------------------------
// Study: the tree of moves and the position shown

/** Starts a new study of the position `fen` (a FEN the server has checked). @param {string} fen */
export function startStudy(fen) {
  study.start = fen;
  study.root = createTree(fen);
  study.path = [];
}

/** The node shown. */
function current() { return nodeOf(study.root, study.path); }

export function studyFen() { return study.root ? current().fen : study.start; }
// The moves from the start to the shown position (the server counts them for repetitions).
export function studyMoves() { return study.path.map((n) => n.move.landing); }

/** Shows the position at the end of `path` (a path of the study's tree). @param {import("../tree.js").TreeNode[]} path */
export function studyGo(path) {
  study.path = path;
  studyShow();
}

// Moving through the tree with the keys: back and forth along the line shown, up and down
// among the alternatives to the last move that has some, to the start and to the line's end.
/** @param {string} key @returns {boolean} whether the key was one of these */
export function studyKey(key) {
  const p = study.path;
  if (key === "ArrowLeft") { if (p.length) studyGo(p.slice(0, -1)); }
  else if (key === "ArrowRight") { const next = current().children[0]; if (next) studyGo([...p, next]); }
  else if (key === "ArrowUp" || key === "ArrowDown") {
    const q = siblingPath(study.root, p, key === "ArrowUp" ? -1 : 1);
    if (q !== p) studyGo(q);
  } else if (key === "Home") studyGo([]);
  else if (key === "End") studyGo([...p, ...mainContinuation(current())]);
  else return false;
  return true;
}

/** Makes the line shown the main line. */
export function studyPromote() {
  promoteToMainLine(study.root, study.path);
  studyShow();
}

/** Deletes the shown move and everything after it. */
export function studyDelete() {
  studyGo(deleteFrom(study.root, study.path));
}

export async function studyShow() {
  if (!study.root || study.root.fen !== study.start) startStudy(study.start);
  const fen = studyFen();
  $("fen-input").value = fen;
  const seq = ++study.seq;
  try {
    const v = await api("GET", "/api/moves?fen=" + encodeURIComponent(fen));
    if (seq !== study.seq) return;
    study.legal = v.moves;
    study.outcome = v.outcome;
    S.statusNote = v.outcome.over ? outcomeText(v.outcome) : t("toMove", { side: sideName(v.side) });
  } catch (e) { showFenError(e); study.legal = []; }
  if (S.mode !== "study" || study.editing) return;
  const last = study.path.length ? current().move : null;
  board.set(fen, {
    moves: study.legal,
    onMove: studyMove,
    last: last ? [last.from, ...last.route] : null,
  });
  renderTree($("st-moves"));
  $("st-promote").disabled = onMainLine(study.root, study.path);
  $("st-delete").disabled = !study.path.length;
  renderStatus();
  syncUrl("replace");
  analyze(fen, seq);
  tablebasePanel(fen, seq);
  studyExplorer();
}

/** Shows the opening explorer of the shown position (again, when its source or filters change). */
export function studyExplorer() {
  explorerPanel(studyFen(), study.seq, () => study.seq, study.legal, studyMove);
}

/**
 * Plays `m` in the shown position: it follows the continuation the tree already has for it, or
 * adds one (a variation when the position already had a continuation).
 */
export async function studyMove(m, opts = {}) {
  try {
    const animation = board.animate(m, null, opts.dragged);
    const res = await api("POST", "/api/move", { fen: study.start, moves: studyMoves(), move: m.landing });
    await animation;
    study.path = [...study.path, addMove(current(), res.move, res.position.fen)];
    announce(moveText(res.move));
    studyShow();
  } catch (e) { showError(e); studyShow(); }
}

/** Plays the moves `landings` one after the other from the shown position (a line of the engine). @param {string[]} landings */
async function playLine(landings) {
  try {
    for (const landing of landings) {
      const res = await api("POST", "/api/move", { fen: study.start, moves: studyMoves(), move: landing });
      study.path = [...study.path, addMove(current(), res.move, res.position.fen)];
    }
  } catch (e) { showError(e); }
  studyShow();
}

// ---------------------------------------------------------------------------------------------
// Study: the moves as a list, the main line in two columns and each move's alternatives in
// parentheses under it, inline (as lichess writes them); the shown move is highlighted, every
// move can be clicked.

/** @param {HTMLElement} listEl */
function renderTree(listEl) {
  listEl.textContent = "";
  const root = study.root;
  const blackFirst = parseFen(study.start).side === "B";
  const shown = current();
  /** @param {import("../tree.js").TreeNode} node @param {number} ply @param {boolean} main */
  const moveButton = (node, ply, main) => {
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = moveText(node.move);
    b.dataset.ply = String(ply + 1 - (blackFirst ? 1 : 0));
    if (!main) b.className = "varmove";
    if (node === shown) { b.classList.add("cur"); b.setAttribute("aria-current", "true"); }
    if (node.comment) { b.classList.add("commented"); b.title = node.comment; }
    b.addEventListener("click", () => { const path = pathTo(root, node); if (path) studyGo(path); });
    return b;
  };
  /** @param {number} ply */
  const number = (ply) => Math.floor(ply / 2) + 1 + (ply % 2 ? "…" : ".");
  // A variation and the ones inside it, inline: "(3… f6-f5 4. c3-c4 (4. a3-a4) d6-d5)".
  /** @param {import("../tree.js").TreeNode} first @param {number} ply */
  const variation = (first, ply) => {
    const span = document.createElement("span");
    span.className = "var";
    span.append("(");
    let node = first, p = ply, force = true;
    /** @type {import("../tree.js").TreeNode[]} */
    let alternatives = [];
    for (;;) {
      if (node !== first) span.append(" ");
      if (p % 2 === 0 || force) {
        const num = document.createElement("span");
        num.className = "varnum";
        num.textContent = number(p);
        span.append(num);
      }
      span.append(moveButton(node, p, false));
      force = false;
      for (const alt of alternatives) { span.append(" ", variation(alt, p)); force = true; }
      if (!node.children.length) break;
      [node, ...alternatives] = node.children;
      p++;
    }
    span.append(")");
    return span;
  };
  let li = null;
  let ply = blackFirst ? 1 : 0;
  for (let node = root; node.children.length; node = node.children[0], ply++) {
    const [main, ...alternatives] = node.children;
    if (ply % 2 === 0 || li === null) li = moveRow(listEl, ply);
    li.appendChild(moveButton(main, ply, true));
    if (alternatives.length) {
      // White's move with alternatives: its row ends with an empty Black cell, the
      // alternatives follow on a row of their own, then Black's move on a new row.
      if (ply % 2 === 0) li.appendChild(document.createElement("span"));
      const row = document.createElement("li");
      row.className = "vars";
      for (const alt of alternatives) row.appendChild(variation(alt, ply));
      listEl.appendChild(row);
      li = null;
    }
  }
  const cur = listEl.querySelector(".cur");
  if (cur) cur.scrollIntoView({ block: "nearest" });
  // The comment on the move shown (or on the start), from an imported PDN.
  const said = (shown || root).comment || "";
  $("st-comment").hidden = !said;
  $("st-comment").textContent = said;
}

// ---------------------------------------------------------------------------------------------
// Study: the evaluation. Without the analysis, one short search of the position shown; with it
// (the toggle), its best lines, searched again and again with more time while the position
// stays, each answer replacing the last.

/** How long each search of the analysis thinks, in milliseconds; the last is repeated no more. */
const DEEPENING_MS = [300, 1000, 3000, 10000];
/** How many lines the analysis shows. */
const ANALYSIS_LINES = 3;

export function scoreText(a) {
  if (a.mate !== null && a.mate !== undefined) return t(a.mate > 0 ? "mateIn" : "lossIn", { n: Math.abs(a.mate) });
  const s = a.white_score / 100;
  return (s > 0 ? "+" : "") + s.toFixed(2);
}

/** @type {any[]} the analysis's lines for the position shown (the server's `lines`) */
let engineLines = [];

/**
 * The first moves of the engine's best lines, as arrows to draw on the board, the best first:
 * [{from, to, brush: "blue"}] (empty while the analysis is off or has no answer yet).
 * @returns {{from: string, to: string, brush: string}[]}
 */
export function engineShapes() {
  // The best line blue, the others yellow; a capture's arrow runs through its landings.
  return engineLines.filter((l) => l.move).map((l, i) => ({
    from: l.move.from, to: l.move.to, via: (l.move.route || []).slice(0, -1), brush: i === 0 ? "blue" : "yellow",
  }));
}

// Shows the engine's arrows on the board (board/shapes.js), and names them on the board's
// element too, where the tests read them.
function showEngineShapes() {
  const shapes = engineShapes();
  setShapes(board.el, shapes);
  board.el.dataset.engineArrows = shapes.map((s) => s.from + "-" + s.to).join(" ");
}

let analyzeTimer = null;
let analyzeAbort = null;
export function analyze(fen, seq) {
  clearTimeout(analyzeTimer);
  // A search for a position no longer shown is stopped on the server when its request ends.
  if (analyzeAbort) analyzeAbort.abort();
  analyzeAbort = new AbortController();
  const signal = analyzeAbort.signal;
  engineLines = [];
  showEngineShapes();
  $("an-score").textContent = "…";
  $("an-pv").textContent = "…";
  $("an-depth").textContent = "";
  $("an-lines").textContent = "";
  if (study.outcome && study.outcome.over) {
    $("an-score").textContent = outcomeText(study.outcome);
    $("an-pv").textContent = "–";
    setEval(study.outcome.winner === "white" ? 1 : study.outcome.winner === "black" ? -1 : 0);
    return;
  }
  const body = { fen: study.start, moves: studyMoves() };
  analyzeTimer = setTimeout(async () => {
    const steps = study.analysing ? DEEPENING_MS : [1500];
    let retries = 5;
    for (let i = 0; i < steps.length; i++) {
      const multipv = study.analysing ? ANALYSIS_LINES : 1;
      let a;
      try {
        a = await api("POST", "/api/analyze", { ...body, move_time_ms: steps[i], multipv }, signal);
      } catch (e) {
        if (e.name === "AbortError" || seq !== study.seq) return;
        // The last search of this page may still hold the server's turn for a moment.
        if (transient(e) && study.analysing && retries-- > 0) {
          await new Promise((r) => setTimeout(r, 400));
          if (signal.aborted) return;
          i--;
          continue;
        }
        if (!engineLines.length) { $("an-score").textContent = "–"; $("an-pv").textContent = errorText(e); }
        return;
      }
      if (seq !== study.seq || signal.aborted) return;
      showAnalysis(a, fen, study.analysing);
    }
  }, 150);
}

/** @param {any} a the server's analysis @param {string} fen @param {boolean} withLines */
function showAnalysis(a, fen, withLines) {
  $("an-score").textContent = scoreText(a);
  $("an-pv").textContent = a.pv.join(" ") || "–";
  $("an-depth").textContent = a.depth ? "(" + t("depth", { n: a.depth }) + ")" : "";
  let frac;
  if (a.mate !== null && a.mate !== undefined) {
    const whiteWins = (a.mate > 0) === (parseFen(fen).side === "W");
    frac = whiteWins ? 1 : -1;
  } else frac = Math.tanh(a.white_score / 400);
  setEval(frac);
  if (!withLines) return;
  // The engine in this browser (local.js) answers one line, without `lines`.
  engineLines = Array.isArray(a.lines) ? a.lines : a.best ? [{ ...a, move: a.best }] : [];
  renderLines();
  showEngineShapes();
}

// The analysis's lines: score, depth and the first moves, each move a button that plays the
// line up to it into the tree.
function renderLines() {
  const list = $("an-lines");
  list.textContent = "";
  for (const line of engineLines) {
    const li = document.createElement("li");
    const score = document.createElement("strong");
    score.className = "an-line-score";
    score.textContent = scoreText(line);
    li.appendChild(score);
    const depth = document.createElement("span");
    depth.className = "muted";
    depth.textContent = " " + t("depth", { n: line.depth }) + " ";
    li.appendChild(depth);
    line.pv.slice(0, 8).forEach((/** @type {string} */ landing, /** @type {number} */ k) => {
      const b = document.createElement("button");
      b.type = "button";
      b.textContent = landing;
      b.addEventListener("click", () => playLine(line.pv.slice(0, k + 1)));
      li.appendChild(b);
    });
    list.appendChild(li);
  }
}

/** Turns the analysis (several lines, deepening) on or off. @param {boolean} [on] */
export function toggleAnalysis(on = !study.analysing) {
  study.analysing = on;
  $("an-toggle").setAttribute("aria-pressed", String(on));
  $("an-lines").hidden = !on;
  if (S.mode === "study" && !study.editing) analyze(studyFen(), study.seq);
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
// "win", or "win in 3" where the tables have the distance: plies to the next capture,
// promotion or man's forward step (distance to conversion).
/** @param {string} value @param {number} [dtc] */
function tbText(value, dtc) {
  return value !== "draw" && typeof dtc === "number" ? t("tb:" + value + "In", { n: dtc }) : t("tb:" + value);
}
export async function tablebasePanel(fen, seq) {
  const panel = $("tb-panel");
  if (tbAbort) tbAbort.abort();
  tbAbort = new AbortController();
  // The panel still shows the last position until this one's answer comes: marked busy.
  panel.setAttribute("aria-busy", "true");
  let a;
  try {
    a = await api("GET", "/api/tablebase?fen=" + encodeURIComponent(fen), undefined, tbAbort.signal);
  } catch (e) {
    // No tables, too many pieces, or the server is gone: no panel.
    if (e.name !== "AbortError" && seq === study.seq) {
      panel.hidden = true;
      panel.removeAttribute("aria-busy");
    }
    return;
  }
  if (seq !== study.seq) return;
  $("tb-value").textContent = tbText(a.value, a.dtc);
  $("tb-value").className = "tb-" + a.value;
  const list = $("tb-moves");
  list.textContent = "";
  for (const m of a.moves) {
    const li = document.createElement("li");
    const b = document.createElement("button");
    b.type = "button";
    b.className = "tb-" + m.value;
    b.textContent = m.move.landing + " " + tbText(m.value, m.dtc);
    b.addEventListener("click", () => studyMove(m.move));
    li.appendChild(b);
    list.appendChild(li);
  }
  $("tb-help").hidden = typeof a.dtc !== "number" && !a.moves.some((/** @type {any} */ m) => typeof m.dtc === "number");
  panel.hidden = false;
  panel.removeAttribute("aria-busy");
}


// Stops the analysis of a position no longer shown (another view, the editor).
export function stopAnalysis() {
  clearTimeout(analyzeTimer);
  if (analyzeAbort) analyzeAbort.abort();
  engineLines = [];
  showEngineShapes();
}

// The study an address names (#/study?fen=...&moves=...&tree=...): its start, the tree of its
// moves and the line to the position shown; each move is checked by the server.
/** @param {string} fen @param {string[]} moves @param {string} [treeText] */
export async function loadLine(fen, moves, treeText) {
  /** @type {import("../tree.js").MoveSkeleton|null} */
  let skeleton = null;
  if (treeText) { try { skeleton = textToTree(treeText); } catch (e) { showError(e); } }
  await loadTree(fen, moves, skeleton);
}

/**
 * A study of `fen` with the moves of `skeleton` (checked by the server, comments kept) and the
 * line `moves` shown.
 * @param {string} fen @param {string[]} moves @param {import("../tree.js").MoveSkeleton|null} skeleton
 */
export async function loadTree(fen, moves, skeleton) {
  try {
    let v;
    try { v = await api("GET", "/api/moves?fen=" + encodeURIComponent(fen)); } catch (e) { showFenError(e); return; }
    startStudy(v.fen);
    /** @param {import("../tree.js").TreeNode} node @param {import("../tree.js").MoveSkeleton} skeleton @param {string[]} before */
    const grow = async (node, skeleton, before) => {
      for (const c of skeleton.children) {
        const res = await api("POST", "/api/move", { fen: study.start, moves: before, move: c.landing });
        const child = addMove(node, res.move, res.position.fen);
        if (c.comment) child.comment = c.comment;
        await grow(child, c, [...before, res.move.landing]);
      }
    };
    if (skeleton) {
      if (skeleton.comment) study.root.comment = skeleton.comment;
      try { await grow(study.root, skeleton, []); } catch (e) { showError(e); }
    }
    // The line to the position shown, added when the tree lacks it.
    study.path = followMoves(study.root, moves);
    for (const move of moves.slice(study.path.length)) {
      const res = await api("POST", "/api/move", { fen: study.start, moves: studyMoves(), move });
      study.path = [...study.path, addMove(current(), res.move, res.position.fen)];
    }
  } catch (e) { showError(e); }
}

/**
 * The address of the shown study position: its start, the moves to it and, when the study
 * holds more than those moves, the whole tree.
 */
export function studyUrl() {
  const q = new URLSearchParams({ fen: study.start || "" });
  const moves = studyMoves();
  if (moves.length) q.set("moves", moves.join(","));
  const tree = study.root ? treeToText(study.root) : "";
  if (tree && tree !== moves.join(",")) q.set("tree", tree);
  return "#/study?" + q.toString();
}

/** The study as PDN: the start position when it is not the usual one, the moves and variations. */
export function studyPdn() {
  const tags = ['[GameType "30"]'];
  if (study.start !== START_FEN) tags.push('[SetUp "1"]', `[FEN "${study.start}"]`);
  const blackFirst = parseFen(study.start).side === "B";
  return tags.join("\n") + "\n\n" + treeToPdn(study.root, blackFirst, moveText) + "\n";
}

/** Copies the study as PDN. */
export async function copyStudyPdn() {
  const text = studyPdn();
  try { await navigator.clipboard.writeText(text); toast(t("copiedPdn")); } catch (_) { toast(text, 8000); }
}
