// The reader's settings, kept in this browser (localStorage): theme, board and pieces,
// coordinates, legal-move dots, animation speed, sound, confirming moves and premoves.
import { $, $$, setStepSource } from "./util.js";
import { translate } from "./i18n.js";

const KEY = "damasi.settings";
const reducedMotion = window.matchMedia("(prefers-reduced-motion: reduce)").matches;

/**
 * @typedef {Object} Settings
 * @property {"system"|"light"|"dark"} theme
 * @property {"wood"|"green"|"blue"|"turkish"} board  `turkish`: one colour, grid lines
 * @property {"classic"|"flat"} pieces
 * @property {boolean} coords
 * @property {boolean} dots
 * @property {"off"|"fast"|"normal"|"slow"} speed
 * @property {boolean} sound
 * @property {boolean} confirm
 * @property {boolean} premove
 */

/** @type {Settings} */
const DEFAULTS = {
  theme: "system", board: "wood", pieces: "classic", coords: true, dots: true,
  speed: reducedMotion ? "off" : "normal", sound: true, confirm: false, premove: true,
};
const STEP = { off: 0, fast: 90, normal: 180, slow: 360 };

/** @returns {Settings} */
function load() {
  let saved = {};
  try { saved = JSON.parse(localStorage.getItem(KEY) || "{}") || {}; } catch (_) { saved = {}; }
  const out = { ...DEFAULTS };
  // Only known keys with a value of the default's type are taken.
  for (const k of Object.keys(DEFAULTS)) if (typeof saved[k] === typeof DEFAULTS[k]) out[k] = saved[k];
  return out;
}

/** @type {Settings} */
export const settings = load();

/** @type {((s: Settings) => void)[]} */
const listeners = [];
/** @param {(s: Settings) => void} fn */
export function onSettings(fn) { listeners.push(fn); }

/** @param {string} key @param {any} value */
export function setSetting(key, value) {
  settings[key] = value;
  localStorage.setItem(KEY, JSON.stringify(settings));
  apply();
}

// The page's look follows the settings through attributes on <html> (app.css).
export function apply() {
  const d = document.documentElement;
  d.dataset.theme = settings.theme;
  d.dataset.boardStyle = settings.board;
  d.dataset.pieces = settings.pieces;
  d.classList.toggle("no-coords", !settings.coords);
  d.classList.toggle("no-dots", !settings.dots);
  for (const fn of listeners) fn(settings);
}

setStepSource(() => STEP[settings.speed] ?? 180);

// The settings dialog, the same on every page (the main page and the online pages): made here,
// so that one markup serves both.
const DIALOG = `
<dialog id="settings-dialog" aria-labelledby="settings-title">
  <form method="dialog">
    <h2 id="settings-title" data-i18n="settings">Settings</h2>
    <div class="settings">
      <label><span data-i18n="setTheme">Theme</span>
        <select data-setting="theme" id="set-theme">
          <option value="system" data-i18n="themeSystem">As the system</option>
          <option value="light" data-i18n="themeLight">Light</option>
          <option value="dark" data-i18n="themeDark">Dark</option>
        </select></label>
      <label><span data-i18n="setBoard">Board</span>
        <select data-setting="board" id="set-board">
          <option value="wood" data-i18n="boardWood">Wood</option>
          <option value="green" data-i18n="boardGreen">Green</option>
          <option value="blue" data-i18n="boardBlue">Blue</option>
          <option value="turkish" data-i18n="boardTurkish">Traditional (one colour, lines)</option>
        </select></label>
      <label><span data-i18n="setPieces">Pieces</span>
        <select data-setting="pieces" id="set-pieces">
          <option value="classic" data-i18n="piecesClassic">Classic</option>
          <option value="flat" data-i18n="piecesFlat">Flat</option>
        </select></label>
      <label><span data-i18n="setSpeed">Animation</span>
        <select data-setting="speed" id="set-speed">
          <option value="off" data-i18n="speedOff">Off</option>
          <option value="fast" data-i18n="speedFast">Fast</option>
          <option value="normal" data-i18n="speedNormal">Normal</option>
          <option value="slow" data-i18n="speedSlow">Slow</option>
        </select></label>
      <label class="check"><input type="checkbox" data-setting="coords" id="set-coords"> <span data-i18n="setCoords">Coordinates</span></label>
      <label class="check"><input type="checkbox" data-setting="dots" id="set-dots"> <span data-i18n="setDots">Legal move dots</span></label>
      <label class="check"><input type="checkbox" data-setting="sound" id="set-sound"> <span data-i18n="setSound">Sound (moves, captures, low time)</span></label>
      <label class="check"><input type="checkbox" data-setting="confirm" id="set-confirm"> <span data-i18n="setConfirm">Confirm moves</span></label>
      <label class="check"><input type="checkbox" data-setting="premove" id="set-premove"> <span data-i18n="setPremove">Premoves while the opponent thinks</span></label>
    </div>
    <div class="btnrow end"><button value="ok" class="primary" data-i18n="done">Done</button></div>
  </form>
</dialog>
`;

// The settings dialog: every control named by data-setting shows and changes its value; the
// ⚙ button (btn-settings) opens it.
export function wireSettings() {
  if (!$("settings-dialog")) {
    document.body.insertAdjacentHTML("beforeend", DIALOG);
    translate($("settings-dialog"));
  }
  for (const el of $$("[data-setting]")) {
    const key = el.dataset.setting;
    if (el.type === "checkbox") el.checked = !!settings[key];
    else el.value = String(settings[key]);
    el.addEventListener("change", () => setSetting(key, el.type === "checkbox" ? el.checked : el.value));
  }
  $("btn-settings").addEventListener("click", () => $("settings-dialog").showModal());
  apply();
}
