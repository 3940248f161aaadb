// The views of the page, which one is shown, and its address. A view registers itself with a
// name, its panel, the first word(s) of its address and what to do when it is shown, entered
// from an address or left; a new page (Learn, puzzles, ...) is one more view.
//
// Addresses are hash routes (no server change needed, and they work in the exported static
// page): #/game/12, #/study?fen=...&moves=d3-d4,e6-e5, #/editor?fen=..., #/games.
import { $ } from "./util.js";
import { S } from "./state.js";

/**
 * @typedef {Object} Route
 * @property {string} word  the address's first word (`game` in #/game/12)
 * @property {string} rest  what follows it (`12`)
 * @property {URLSearchParams} query
 */

/**
 * @typedef {Object} View
 * @property {string} panel  the id of the view's panel
 * @property {string} [tab]  the tab that is selected while it shows (its name by default)
 * @property {string[]} words  the first words of its addresses
 * @property {() => void} show  draws the view when it becomes the shown one
 * @property {(r: Route) => Promise<void>|void} [enter]  takes the state an address names
 * @property {() => string} url  the address of what it shows now
 * @property {() => void} [leave]  stops what the view does in the background
 */

/** @type {Map<string, View>} */
const views = new Map();

/** @param {string} name @param {View} view */
export function registerView(name, view) { views.set(name, view); }

/** The route an address names, or null. @param {string} hash */
export function parseRoute(hash) {
  const m = /^#\/([a-z-]+)\/?([^?]*)\??(.*)$/.exec(hash || "");
  if (!m) return null;
  return { word: m[1], rest: decodeURIComponent(m[2]), query: new URLSearchParams(m[3]) };
}

/** @param {string} word */
function viewFor(word) {
  for (const [name, v] of views) if (v.words.includes(word)) return name;
  return null;
}

/**
 * Puts the shown view's address in the location bar: a new entry (`push`, only when it
 * changes) or in place of the current one (`replace`).
 * @param {"push"|"replace"} how
 */
export function syncUrl(how = "replace") {
  // While the page opens, the address it was opened with stays until the view it names is
  // shown (a reload meanwhile must not lose it).
  if (S.booting) return;
  const view = views.get(S.mode);
  if (!view) return;
  const url = view.url();
  if (url === location.hash) return;
  if (how === "push" && location.hash) history.pushState(null, "", url);
  else history.replaceState(null, "", url);
}

/** Shows the view `m` (play, study, games, ...). @param {string} m @param {"push"|"replace"|"none"} how */
export function setMode(m, how = "push") {
  const before = views.get(S.mode);
  if (S.mode !== m && before && before.leave) before.leave();
  S.mode = m;
  const view = views.get(m);
  const tab = (view && view.tab) || m;
  for (const b of document.querySelectorAll(".tabs button")) {
    b.setAttribute("aria-selected", String(/** @type {HTMLElement} */ (b).dataset.mode === tab));
  }
  const panel = view ? view.panel : "";
  for (const v of views.values()) $(v.panel).hidden = true;
  if (panel) $(panel).hidden = false;
  document.body.dataset.view = m;
  S.statusNote = "";
  if (view) view.show();
  if (how !== "none") syncUrl(how);
}

/** Draws the shown view again (after the language, the board's side or a setting changed). */
export function redraw() {
  const view = views.get(S.mode);
  if (view) view.show();
}

/**
 * Opens what an address names (after a reload, from a shared link, or Back); returns
 * whether it named a view. @param {string} hash
 */
export async function openRoute(hash) {
  const r = parseRoute(hash);
  const name = r && viewFor(r.word);
  if (!name) return false;
  const view = views.get(name);
  if (view.enter) await view.enter(r);
  setMode(name, "none");
  return true;
}

// Back and Forward: the view of the address the browser went to.
window.addEventListener("popstate", () => { openRoute(location.hash); });
