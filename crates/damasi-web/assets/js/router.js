// The views of the page and which one is shown. A view registers itself with a name, its panel
// and what to do when it is shown or left; a new page (Learn, puzzles, ...) is one more view.
import { $ } from "./util.js";
import { S } from "./state.js";

/**
 * @typedef {Object} View
 * @property {string} panel  the id of the view's panel
 * @property {() => void} show  draws the view when it becomes the shown one
 * @property {() => void} [leave]  stops what the view does in the background
 */

/** @type {Map<string, View>} */
const views = new Map();

/** @param {string} name @param {View} view */
export function registerView(name, view) { views.set(name, view); }

/** Shows the view `m` (play, study, games, ...). @param {string} m */
export function setMode(m) {
  const before = views.get(S.mode);
  if (S.mode !== m && before && before.leave) before.leave();
  S.mode = m;
  for (const b of document.querySelectorAll(".tabs button")) {
    b.setAttribute("aria-selected", String(/** @type {HTMLElement} */ (b).dataset.mode === m));
  }
  for (const [name, v] of views) $(v.panel).hidden = name !== m;
  document.body.dataset.view = m;
  S.statusNote = "";
  const view = views.get(m);
  if (view) view.show();
}
