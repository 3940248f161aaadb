// The page's words in the reader's language: the dictionaries are in /i18n.js (window.I18N,
// shared with the online page and checked by the i18n test); this module picks and fills them.
import { $, $$ } from "./util.js";


let lang = localStorage.getItem("damasi.lang") || ((navigator.language || "en").startsWith("tr") ? "tr" : "en");

export function t(key, vars) {
  let s = (window.I18N[lang] && window.I18N[lang][key]) || window.I18N.en[key] || key;
  for (const [k, v] of Object.entries(vars || {})) s = s.split("{" + k + "}").join(v);
  return s;
}
/**
 * `key`'s text for a count `n` (as `{n}`): the key's `:one` form when `n` is 1 and the
 * language has one ("It is your move in 1 game."), else the key's own.
 * @param {string} key @param {number} n @param {Record<string, any>} [vars]
 */
export function tn(key, n, vars) {
  const one = n === 1 && window.I18N[lang] && window.I18N[lang][key + ":one"];
  return t(one ? key + ":one" : key, { ...vars, n });
}
export function hasText(key) { return Object.prototype.hasOwnProperty.call(window.I18N.en, key); }
export function sideName(side) { return t(side === "white" || side === "W" ? "white" : "black"); }

// An outcome in the reader's language, from its code (`white:resignation`, `draw:agreement`,
// `aborted`); the server's English sentence only for a code this page does not know.
// `resultOnly`: the result came from a record that gave no reason (docs/web-api.md,
// `_result_only`), so only who won is said.
export function outcomeText(outcome, resultOnly = false) {
  const o = typeof outcome === "string" ? { code: outcome } : outcome || {};
  const code = o.code || "";
  if (code === "aborted") return t("out:aborted");
  const [who, reason] = code.split(":");
  if (resultOnly && ["white", "black", "draw"].includes(who)) return t(who === "draw" ? "drawn" : who + "Wins");
  const key = (who === "draw" ? "draw:" : "win:") + reason;
  if (!reason || !["white", "black", "draw"].includes(who) || !hasText(key)) return o.reason || code;
  return t(key, { winner: sideName(who), loser: sideName(who === "white" ? "black" : "white") });
}

/** A game's ending as the server describes the game (`outcome`, and `tags` of an import). @param {any} g */
export function gameOutcomeText(g) {
  return outcomeText(g.outcome, !!(g.tags && typeof g.tags === "object" && g.tags._result_only));
}

/**
 * Fills the texts of the elements under `root` that name one: `data-i18n` (the text),
 * `data-i18n-label` (aria-label), `data-i18n-placeholder` and `data-i18n-title`.
 * @param {Document|Element} [root]
 */
export function translate(root = document) {
  /** @param {string} attr @param {(el: HTMLElement, text: string) => void} put */
  const fill = (attr, put) => root.querySelectorAll(`[${attr}]`).forEach((el) => put(/** @type {HTMLElement} */ (el), t(el.getAttribute(attr) || "")));
  fill("data-i18n", (el, s) => { el.textContent = s; });
  fill("data-i18n-label", (el, s) => el.setAttribute("aria-label", s));
  fill("data-i18n-placeholder", (el, s) => el.setAttribute("placeholder", s));
  fill("data-i18n-title", (el, s) => el.setAttribute("title", s));
}

export function applyI18n() {
  document.documentElement.lang = lang;
  translate(document);
  for (const b of $$(".langs button")) b.setAttribute("aria-pressed", String(b.dataset.lang === lang));
}

/**
 * The header's EN / TR buttons (every page has them): the choice is kept for all pages, the
 * page's fixed texts are filled again, and `redraw` draws what the page wrote itself.
 * @param {() => void} redraw
 */
export function wireLangs(redraw) {
  for (const b of $$(".langs button")) b.addEventListener("click", () => {
    setLang(b.dataset.lang);
    applyI18n();
    redraw();
  });
}

export function announce(text) {
  const el = $("announce");
  el.textContent = "";
  setTimeout(() => { el.textContent = text; }, 30);
}

let toastTimer = null;
export function toast(text, ms = 3500) {
  const el = $("toast");
  el.onclick = () => { el.hidden = true; };
  el.textContent = text;
  el.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { el.hidden = true; }, ms);
}

export function getLang() { return lang; }
/** @param {string} l */
export function setLang(l) { lang = l; localStorage.setItem("damasi.lang", l); }

/** An engine level with its name: "3 · casual". @param {number} n */
export function levelName(n) { return t("levelNamed", { n, name: t("lvl" + n) }); }
