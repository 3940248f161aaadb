// The Learn view: the rules course (GET /api/learn/course) and the federation's ten capture
// examples (GET /api/learn/examples) as exercises. The page judges nothing itself: the move is
// played through POST /api/move and its landing notation compared with the step's `accepted`.
import { $ } from "../util.js";
import { t, getLang, announce } from "../i18n.js";
import { api, showError } from "../api.js";
import { board } from "../board/index.js";
import { START_FEN } from "../position.js";
import { S } from "../state.js";
import { renderStatus, setStatusNote } from "./play.js";
import { syncUrl } from "../router.js";

const DONE_KEY = "damasi.learn.done";

/**
 * An exercise: a course step or a federation example, in one shape.
 * @typedef {{id: string, title: any, text: any, wrong: any, explanation?: any, fen: string,
 *   history: string[], accepted: string[], last?: string[]}} Exercise
 */

export const learn = {
  /** @type {{lesson: string|any, items: Exercise[]}[]|null} */ groups: null,
  /** @type {string|null} the shown exercise's id; null: the list alone */ id: null,
  /** @type {"play"|"right"|"wrong"} */ state: "play",
  /** @type {{fen: string, last: string[]}|null} the position after the right move */ after: null,
  seq: 0,
};

/** Done exercises' ids, kept in this browser. @returns {Set<string>} */
export function doneSet() {
  try { return new Set(JSON.parse(localStorage.getItem(DONE_KEY) || "[]")); } catch (_) { return new Set(); }
}
function markDone(id) {
  const s = doneSet();
  s.add(id);
  localStorage.setItem(DONE_KEY, JSON.stringify([...s]));
}

// A {en, tr} text in the reader's language.
const tx = (o) => (o ? o[getLang()] || o.en || "" : "");

async function loadData() {
  if (learn.groups) return;
  const [course, ex] = await Promise.all([api("GET", "/api/learn/course"), api("GET", "/api/learn/examples")]);
  const groups = course.lessons.map((l) => ({
    lesson: l.title,
    items: l.steps.map((s) => ({ id: s.id, title: s.title, text: s.text, wrong: s.wrong, fen: s.fen, history: s.history || [], accepted: s.accepted })),
  }));
  groups.push({
    lesson: "examples",
    items: ex.examples.map((e) => ({
      id: e.id, title: e.title, text: e.statement, wrong: e.wrong, explanation: e.explanation, fen: e.fen, history: [], accepted: e.accepted,
      // Example 6 starts after Black's move: it is marked as the last move.
      last: e.setup ? e.setup.move.split(/[-x]/) : undefined,
    })),
  });
  learn.groups = groups;
}

/** @returns {Exercise[]} */
function allItems() { return (learn.groups || []).flatMap((g) => g.items); }
function current() { return allItems().find((e) => e.id === learn.id) || null; }

/** The shown exercise's position before its moves (the material counter counts from it). */
export function learnStartFen() { const ex = current(); return ex ? ex.fen : null; }

export function learnUrl() { return learn.id ? `#/learn/${encodeURIComponent(learn.id)}` : "#/learn"; }

/** @param {string} id */
export async function enterLearn(id) {
  try { await loadData(); } catch (e) { showError(e); return; }
  learn.id = id && allItems().some((e) => e.id === id) ? id : null;
  learn.state = "play";
}

export async function learnShow() {
  try { await loadData(); } catch (e) { showError(e); return; }
  if (S.mode !== "learn") return;
  renderList();
  const ex = current();
  $("learn-step").hidden = !ex;
  if (!ex) {
    board.set(START_FEN, {});
    setStatusNote(t("learnPick"));
    syncUrl("replace");
    return;
  }
  $("learn-title").textContent = tx(ex.title);
  $("learn-text").textContent = tx(ex.text);
  renderFeedback();
  await setPosition(ex);
  syncUrl("replace");
}

function renderFeedback() {
  const ex = current();
  const fb = $("learn-feedback");
  fb.classList.remove("right", "wrong");
  if (!ex || learn.state === "play") { fb.hidden = true; }
  else if (learn.state === "right") {
    fb.hidden = false;
    fb.classList.add("right");
    fb.textContent = t("wellDone") + (ex.explanation ? " " + tx(ex.explanation) : "");
  } else {
    fb.hidden = false;
    fb.classList.add("wrong");
    fb.textContent = tx(ex.wrong);
  }
  const items = allItems();
  const i = items.findIndex((e) => e.id === learn.id);
  $("learn-next").hidden = learn.state !== "right" || i < 0 || i + 1 >= items.length;
}

// The exercise's position with its legal moves: after its history, when it has one.
async function setPosition(ex) {
  const seq = ++learn.seq;
  // A solved exercise keeps its right move on the board (after a change of language).
  if (learn.state === "right" && learn.after) { board.set(learn.after.fen, { last: learn.after.last }); renderStatus(); return; }
  let view;
  try {
    if (ex.history.length) {
      const h = ex.history;
      view = (await api("POST", "/api/move", { fen: ex.fen, moves: h.slice(0, -1), move: h[h.length - 1] })).position;
    } else view = await api("GET", "/api/moves?fen=" + encodeURIComponent(ex.fen));
  } catch (e) { showError(e); return; }
  if (seq !== learn.seq || S.mode !== "learn") return;
  board.set(view.fen, { moves: learn.state === "right" ? [] : view.moves, onMove: learn.state === "right" ? null : learnMove, last: ex.last || null });
  if (learn.state === "play") setStatusNote(t("learnYourMove"));
  else renderStatus();
}

async function learnMove(m, opts = {}) {
  const ex = current();
  if (!ex) return;
  const id = ex.id;
  try {
    const animation = board.animate(m, null, opts.dragged);
    // No other move while the server judges this one.
    board.moves = []; board.onMove = null;
    const res = await api("POST", "/api/move", { fen: ex.fen, moves: ex.history, move: m.landing });
    await animation;
    if (learn.id !== id) return;
    if (ex.accepted.includes(res.move.landing)) {
      learn.state = "right";
      markDone(id);
      learn.after = { fen: res.position.fen, last: [res.move.from, ...res.move.route] };
      board.set(learn.after.fen, { last: learn.after.last });
      renderFeedback();
      renderList();
      setStatusNote(t("wellDone"));
      announce(t("wellDone"));
    } else {
      learn.state = "wrong";
      renderFeedback();
      announce(tx(ex.wrong));
      // The position again, for another try.
      await setPosition(ex);
      setStatusNote(t("tryAgain"));
    }
  } catch (e) { showError(e); setPosition(ex); }
}

/** @param {string|null} id */
export function openExercise(id) {
  learn.id = id;
  learn.state = "play";
  learnShow();
  syncUrl("push");
}

export function nextExercise() {
  const items = allItems();
  const i = items.findIndex((e) => e.id === learn.id);
  if (i >= 0 && i + 1 < items.length) openExercise(items[i + 1].id);
}

function renderList() {
  const box = $("learn-list");
  box.textContent = "";
  const done = doneSet();
  const items = allItems();
  $("learn-progress").textContent = t("learnProgress", { n: items.filter((e) => done.has(e.id)).length, total: items.length });
  for (const g of learn.groups || []) {
    const h = document.createElement("h3");
    h.textContent = g.lesson === "examples" ? t("fedExamples") : tx(g.lesson);
    const ol = document.createElement("ol");
    ol.className = "steps";
    for (const ex of g.items) {
      const li = document.createElement("li");
      const a = document.createElement("a");
      a.href = "#/learn/" + encodeURIComponent(ex.id);
      a.dataset.step = ex.id;
      a.textContent = tx(ex.title);
      a.addEventListener("click", (e) => { e.preventDefault(); openExercise(ex.id); });
      if (done.has(ex.id)) { li.classList.add("done"); a.setAttribute("aria-label", tx(ex.title) + " ✓"); }
      if (ex.id === learn.id) { li.classList.add("current"); a.setAttribute("aria-current", "step"); }
      li.appendChild(a);
      ol.appendChild(li);
    }
    box.append(h, ol);
  }
}
