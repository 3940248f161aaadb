// Small helpers every module of the page uses.

export const FILES = "abcdefgh";
/** @param {string} id */
export const $ = (id) => /** @type {any} */ (document.getElementById(id));
/** Every element `sel` matches, as an array. @param {string} sel @returns {any[]} */
export const $$ = (sel) => [...document.querySelectorAll(sel)];
/** @param {number} ms */
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
/** @param {string} side */
export const other = (side) => (side === "white" ? "black" : "white");
/** A name with its lichess title before it, as lichess shows a BOT: "BOT name".
 * @param {string} name @param {string | null | undefined} title */
export const titled = (name, title) => (title ? `${title} ${name}` : name);

const reducedMotion = window.matchMedia("(prefers-reduced-motion: reduce)").matches;
// Milliseconds per landing square of an animated move; the settings module replaces it.
/** @type {() => number} */
let stepSource = () => (reducedMotion ? 0 : 180);
export function stepMs() { return stepSource(); }
/** @param {() => number} fn */
export function setStepSource(fn) { stepSource = fn; }
