// The reader's settings, kept in this browser (localStorage): theme, board and pieces,
// coordinates, legal-move dots, animation speed, sound, confirming moves and premoves.
import { $, $$, setStepSource } from "./util.js";

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

// The settings dialog: every control named by data-setting shows and changes its value.
export function wireSettings() {
  for (const el of $$("[data-setting]")) {
    const key = el.dataset.setting;
    if (el.type === "checkbox") el.checked = !!settings[key];
    else el.value = String(settings[key]);
    el.addEventListener("change", () => setSetting(key, el.type === "checkbox" ? el.checked : el.value));
  }
  $("btn-settings").addEventListener("click", () => $("settings-dialog").showModal());
  apply();
}
