// The damasi page. It holds no rules of the game and decides nothing: legal moves (with
// their routes), positions, clocks, the engine's moves and outcomes all come from the server's
// JSON API (docs/web-api.md), which referees every saved game. This module starts the page:
// it registers the views, wires the controls and the keys, and opens the first game.
import { $, $$, sleep } from "./util.js";
import { t, applyI18n, wireLangs, toast, announce, sideName, levelName } from "./i18n.js";
import { showError, transient } from "./api.js";
import { adoptServerToken } from "./server-token.js";
import { Local } from "./local.js";
import { parseFen, START_FEN } from "./position.js";
import { board } from "./board/index.js";
import { S, study } from "./state.js";
import { registerView, setMode, parseRoute, openRoute, syncUrl, redraw } from "./router.js";
import { wireSettings } from "./settings.js";
import { playSound } from "./sound.js";
import { renderMaterial } from "./board/material.js";
import {
  answerDraw, browse, hint, loadGame, newGame, notation, offerDraw, refresh, renderButtons,
  renderPlay, renderPlayers, resign, retryEngine, setStatusNote, shownFen, takeBack, tick, typedMove, rematch,
} from "./views/play.js";
import {
  copyStudyPdn, loadLine, startStudy, stopAnalysis, studyDelete, studyExplorer, studyKey, studyPromote, studyShow, studyUrl,
  toggleAnalysis,
} from "./views/study.js";
import { wireExplorer } from "./views/explorer.js";
import { startEditor, finishEditor, updateEditorFen, loadFen, editorUrl } from "./views/editor.js";
import { importPdn, renderGames } from "./views/games.js";
import { openNewDialog, newGameBody, restoreNewDefaults } from "./views/newgame.js";
import { enterLearn, learnShow, learnStartFen, learnUrl, nextExercise, openExercise, learn } from "./views/learn.js";
import { enterPuzzle, nextPuzzle, puzzle, puzzleLeave, puzzleShow, puzzleUrl, retryPuzzle } from "./views/puzzle.js";
import {
  enterReview, goTo, graphClick, nextMistake, review, reviewShow, reviewUrl, showAnswer, startLearning, stopLearning, stopReview,
} from "./views/review.js";

// Set by an #/editor address: the study view opens with the editor.
let editOnShow = false;

function registerViews() {
  registerView("play", {
    panel: "panel-play",
    words: ["game", "play"],
    url: () => (S.game ? `#/game/${S.game.id}` : "#/play"),
    async enter(r) {
      const id = Number(r.rest);
      if (!id || (S.game && S.game.id === id)) return;
      try { await loadGame(id); } catch (e) { showError(e); }
    },
    show() {
      board.editTool = null;
      board.hint = null; board.hintMove = null;
      $("evalbar").hidden = true;
      if (S.game) renderButtons();
      renderPlay();
    },
  });
  registerView("study", {
    panel: "panel-study",
    words: ["study", "editor"],
    url: () => (study.editing ? editorUrl() : studyUrl()),
    async enter(r) {
      const fen = r.query.get("fen");
      if (study.editing) { study.editing = false; board.editTool = null; $("editor").hidden = true; }
      if (fen) await loadLine(fen, (r.query.get("moves") || "").split(",").filter(Boolean), r.query.get("tree") || "");
      editOnShow = r.word === "editor";
    },
    show() {
      board.hint = null; board.hintMove = null;
      $("evalbar").hidden = false;
      if (S.game) renderButtons();
      if (!study.start) study.start = S.game ? shownFen() : START_FEN;
      renderPlayers();
      if (editOnShow) { editOnShow = false; startEditor(); } else studyShow();
    },
    leave() { stopAnalysis(); },
  });
  registerView("games", {
    panel: "panel-games",
    words: ["games"],
    url: () => "#/games",
    show() {
      $("evalbar").hidden = true;
      if (S.game) renderButtons();
      renderGames();
    },
  });
  registerView("learn", {
    panel: "panel-learn",
    words: ["learn"],
    url: learnUrl,
    enter: (r) => enterLearn(r.rest),
    show() { leaveBoard(); learnShow(); },
  });
  registerView("puzzle", {
    panel: "panel-puzzle",
    words: ["puzzle"],
    url: puzzleUrl,
    enter: (r) => enterPuzzle(r.rest),
    show() { leaveBoard(); puzzleShow(); },
    leave: puzzleLeave,
  });
  registerView("review", {
    panel: "panel-review",
    tab: "games",
    words: ["review"],
    url: reviewUrl,
    enter: (r) => enterReview(r.rest),
    show() { leaveBoard(); reviewShow(); },
    leave: stopReview,
  });
}

// The board as an exercise shows it: no evaluation, hint, players or clocks of the game.
function leaveBoard() {
  board.editTool = null;
  board.hint = null; board.hintMove = null;
  $("evalbar").hidden = true;
  if (S.game) renderButtons();
  renderPlayers();
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

function wire() {
  for (const b of $$(".tabs button")) b.addEventListener("click", () => setMode(b.dataset.mode));
  wireLangs(() => {
    $("new-level-out").textContent = levelName(Number($("new-level").value));
    redraw();
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
    if (S.mode === "study") studyShow(); else renderPlay();
  });
  $("move-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const text = $("move-input").value.trim();
    if (text) typedMove(text);
  });
  /** @type {[string, (n: number) => number][]} */
  const navs = [["nav-first", () => 0], ["nav-prev", (n) => n - 1], ["nav-next", (n) => n + 1], ["nav-last", () => Infinity]];
  for (const [id, f] of navs) {
    $(id).addEventListener("click", () => { if (S.game) browse(f(S.viewPly === null ? S.game.plies.length : S.viewPly)); });
  }
  $("btn-copyfen-play").addEventListener("click", () => copyText(shownFen()));
  $("btn-analyse").addEventListener("click", () => {
    if (!S.game) return;
    if (study.editing) { study.editing = false; board.editTool = null; $("editor").hidden = true; }
    startStudy(shownFen());
    setMode("study");
  });

  $("new-level").addEventListener("input", () => { $("new-level-out").textContent = levelName(Number($("new-level").value)); });
  $("btn-rematch").addEventListener("click", rematch);
  $("btn-help").addEventListener("click", () => $("help-dialog").showModal());
  for (const r of $$('input[name="opp"]')) r.addEventListener("change", () => {
    $("engine-opts").disabled = $('new-form').querySelector('input[name="opp"]:checked').value !== "engine";
  });
  $("new-dialog").addEventListener("close", () => {
    if ($("new-dialog").returnValue === "ok") newGame(newGameBody());
  });

  $("st-undo").addEventListener("click", () => studyKey("ArrowLeft"));
  $("st-promote").addEventListener("click", studyPromote);
  $("st-delete").addEventListener("click", studyDelete);
  $("st-pdn").addEventListener("click", copyStudyPdn);
  $("an-toggle").addEventListener("click", () => toggleAnalysis());
  wireExplorer(studyExplorer);
  $("st-flip").addEventListener("click", () => { board.setFlipped(!board.flipped); studyShow(); });
  $("st-edit").addEventListener("click", () => { if (study.editing) finishEditor(); else startEditor(); });
  $("st-play").addEventListener("click", () => openNewDialog(true));
  for (const b of $$(".palette button")) b.addEventListener("click", () => {
    study.tool = b.dataset.tool;
    board.editTool = study.tool;
    for (const o of $$(".palette button")) o.setAttribute("aria-pressed", String(o === b));
  });
  $("ed-side").addEventListener("change", updateEditorFen);
  $("ed-clear").addEventListener("click", () => { study.edit.pieces = {}; board.pos = study.edit; board.drawPieces(); updateEditorFen(); });
  $("ed-start").addEventListener("click", () => {
    study.edit = parseFen(START_FEN);
    $("ed-side").value = "W";
    board.pos = study.edit; board.drawPieces(); updateEditorFen();
  });
  $("ed-done").addEventListener("click", finishEditor);
  $("fen-form").addEventListener("submit", (e) => { e.preventDefault(); loadFen($("fen-input").value); });
  $("st-copyfen").addEventListener("click", () => copyText($("fen-input").value));

  $("learn-next").addEventListener("click", nextExercise);
  $("learn-reset").addEventListener("click", () => openExercise(learn.id));
  $("pz-next").addEventListener("click", nextPuzzle);
  $("pz-retry").addEventListener("click", retryPuzzle);

  /** @type {[string, (n: number) => number][]} */
  const reviewNavs = [["rv-first", () => 0], ["rv-prev", (n) => n - 1], ["rv-next", (n) => n + 1], ["rv-last", () => Infinity]];
  for (const [id, f] of reviewNavs) $(id).addEventListener("click", () => goTo(f(review.idx)));
  $("rv-graph").addEventListener("click", graphClick);
  $("rv-learn").addEventListener("click", startLearning);
  $("rv-learn-answer").addEventListener("click", showAnswer);
  $("rv-learn-next").addEventListener("click", nextMistake);
  $("rv-learn-stop").addEventListener("click", stopLearning);

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
    const target = /** @type {HTMLElement} */ (e.target);
    const tag = (target.tagName || "").toLowerCase();
    if (["input", "textarea", "select"].includes(tag) || target === board.el || $("new-dialog").open || $("settings-dialog").open || $("help-dialog").open) return;
    if (S.mode === "play" && S.game) {
      const cur = S.viewPly === null ? S.game.plies.length : S.viewPly;
      if (e.key === "ArrowLeft") { browse(cur - 1); e.preventDefault(); }
      else if (e.key === "ArrowRight") { browse(cur + 1); e.preventDefault(); }
      else if (e.key === "Home") { browse(0); e.preventDefault(); }
      else if (e.key === "End") { browse(Infinity); e.preventDefault(); }
    } else if (S.mode === "review") {
      if (e.key === "ArrowLeft") { goTo(review.idx - 1); e.preventDefault(); }
      else if (e.key === "ArrowRight") { goTo(review.idx + 1); e.preventDefault(); }
      else if (e.key === "Home") { goTo(0); e.preventDefault(); }
      else if (e.key === "End") { goTo(Infinity); e.preventDefault(); }
    } else if (S.mode === "study") {
      if (!study.editing && studyKey(e.key)) e.preventDefault();
    }
    if (e.key === "f" && !e.ctrlKey && !e.metaKey) {
      board.setFlipped(!board.flipped);
      if (S.mode === "study") studyShow(); else if (S.mode === "review") reviewShow(); else renderPlay();
    }
    if (e.key === "m" && S.mode === "play") { $("move-input").focus(); e.preventDefault(); }
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    if (e.key === "?") { $("help-dialog").showModal(); e.preventDefault(); }
    if (e.key === "s") { $("settings-dialog").showModal(); e.preventDefault(); }
    if (e.key === "n") { openNewDialog(false); e.preventDefault(); }
  });
}

async function boot() {
  await adoptServerToken();
  applyI18n();
  board.init();
  board.note = setStatusNote;
  board.onDrawn = () => renderMaterial(board.pos, board.flipped, materialStart());
  board.onMoved = movedOnBoard;
  wireSettings();
  registerViews();
  wire();
  restoreNewDefaults();
  $("new-level-out").textContent = levelName(Number($("new-level").value));
  const n = localStorage.getItem("damasi.notation");
  if (n) $("notation").value = n;
  setInterval(tick, 200);
  $("btn-engine-mode").addEventListener("click", () => Local.toggle());
  $("btn-stop").addEventListener("click", () => { if (S.game && Local.stop(S.game.id)) refresh(S.game.id); });
  if (await Local.wanted()) {
    try { await Local.start(); } catch (e) { console.warn("in-browser engine:", e); showError(e); }
  }
  Local.decorate(null);
  showWithoutServer();
  // An address names what to show (a shared link, a reload); a game's is opened as the first
  // game, any other view's after it.
  const hash = location.hash;
  const route = parseRoute(hash);
  const gameId = route && route.word === "game" ? Number(route.rest) : 0;
  if (gameId) localStorage.setItem("damasi.game", String(gameId));
  await openFirstGame();
  if (route && !gameId && route.word !== "play") await openRoute(hash);
  S.booting = false;
  syncUrl("replace");
}

// What the page cannot do here: with the engine in this browser games have no clock (the
// time control is put away), and the exported page without a server has no puzzles and no
// online play (their tab and link are put away, with a word why).
function showWithoutServer() {
  if (Local.active) {
    $("new-time").value = "";
    $("new-time").disabled = true;
    $("new-no-clock").hidden = false;
  }
  if (Local.noServer) {
    $("tab-puzzle").hidden = true;
    $("link-online").hidden = true;
    $("link-tournaments").hidden = true;
    $("no-server-note").hidden = false;
  }
}

// The position the shown view's line started from, whose pieces the material counter counts
// captures from; null in the editor.
function materialStart() {
  switch (S.mode) {
    case "play": return S.game ? S.game.start_fen : START_FEN;
    case "study": return study.editing ? null : study.start;
    case "review": return review.game ? review.game.start_fen : null;
    case "learn": return learnStartFen();
    case "puzzle": return puzzle.data ? puzzle.data.fen : null;
    default: return null;
  }
}

// A move shown on the board: its sound, and the federation's "DAMA!" when a man is crowned.
function movedOnBoard(m) {
  playSound(m.captures && m.captures.length ? "capture" : "move");
  if (!m.promotion) return;
  const el = $("dama");
  el.textContent = t("damaNotice");
  el.hidden = false;
  announce(t("promoted", { side: sideName(board.pos.side) }));
  clearTimeout(damaTimer);
  damaTimer = setTimeout(() => { el.hidden = true; }, 1800);
}
let damaTimer = 0;

// The game shown at the start: the one played last, or else the start position, where the
// person's first move starts a game against the engine (play.js, DRAFT_GAME): a visit that
// plays nothing saves nothing. While the server cannot be reached, the page says so and tries
// again.
async function openFirstGame() {
  const saved = Number(localStorage.getItem("damasi.game")) || 0;
  for (let failures = 1; ; failures++) {
    try {
      if (saved) {
        try { await loadGame(saved); setMode("play"); return; } catch (e) { if (transient(e)) throw e; }
        localStorage.removeItem("damasi.game");
      }
      setMode("play");
      return;
    } catch (e) {
      if (!transient(e)) { showError(e); return; }
      $("status").textContent = t("reconnecting");
      $("status").className = "status offline";
      await sleep(Math.min(5000, 400 * 2 ** Math.min(failures, 4)));
    }
  }
}

// The tests (e2e/) and the console look at the page's state through these names.
for (const name of ["game", "viewPly"]) {
  Object.defineProperty(window, name, { get: () => S[name], configurable: true });
}
Object.assign(window, { board, takeBack, typedMove, Local });

boot();
