// What the online page's modules share: the game's sides and states, clock and rating texts,
// and the wrapper that runs a button's request (api.js does the request and its error text).
import { showError } from "../api.js";
import { outcomeText, sideName, t, hasText, toast as showToast } from "../i18n.js";

export const SIDES = ["white", "black"];

/** The text with its first letter upper case. @param {string} s */
export const cap = (s) => (s ? s[0].toUpperCase() + s.slice(1) : s);

/** The main page's toast, shown a little longer here. @param {string} text */
export function toast(text, ms = 4500) { showToast(text, ms); }

/** Whether a game state (gameState) is of a game being played. @param {any} s */
export const running = (s) => !!s && s.status === "started";
/** Whether a game state is of a finished (or aborted) game. @param {any} s */
export const over = (s) => !!s && s.status !== "created" && s.status !== "started";
/** The plies of a game state, in landing notation. @param {any} s @returns {string[]} */
export const plies = (s) => (s && s.moves ? s.moves.split(" ").filter(Boolean) : []);

/** A day, in ms. */
export const DAY_MS = 86400000;

/** The correspondence controls: days a move. */
export const CORRESPONDENCE_DAYS = [1, 2, 3, 5, 7, 14];

/**
 * A time control as "5+3", or a correspondence game's "3 days a move" (`days`, or a clock of
 * whole days with no increment, as the server keeps one).
 * @param {{initial: number, increment: number}|null} clock @param {number|null} [days]
 */
export function clockText(clock, days) {
  if (days == null && clock && clock.increment === 0 && clock.initial >= DAY_MS && clock.initial % DAY_MS === 0) days = clock.initial / DAY_MS;
  if (days != null) return days === 1 ? t("onDayAMove") : t("onDaysAMove", { n: days });
  if (!clock) return "";
  const m = clock.initial / 60000;
  return `${Number.isInteger(m) ? m : m.toFixed(1)}+${Math.round(clock.increment / 1000)}`;
}

/** A side in running text, lower case in English: "white", "beyaz". @param {string} side */
export const sideWord = (side) => t("onSide:" + side);

/**
 * The rules a game is played under, in the reader's language, from the server's `variant`
 * object ({key, noCaptureLimit, kingBeatsLoneMan}): the federation's, then each option.
 * @param {any} v
 */
export function rulesText(v) {
  const parts = [t("rulesDefault")];
  if (v && v.noCaptureLimit) parts.push(t("onRuleNoCapture", { n: v.noCaptureLimit }));
  if (v && v.kingBeatsLoneMan) parts.push(t("onRuleKing"));
  return parts.join(" + ");
}

/** Whether `v` (a `variant` object or key) is the federation's rules. @param {any} v */
export const isStandard = (v) => !v || (typeof v === "string" ? v : v.key) === "standard";

/**
 * Keeps a form's "rated" box off while its rules select names other rules than the
 * federation's (the server plays those casual only, docs/online.md "Ratings").
 * @param {string} selectId @param {string} ratedId
 */
export function casualUnderOtherRules(selectId, ratedId) {
  const select = /** @type {HTMLSelectElement} */ (document.getElementById(selectId));
  const rated = /** @type {HTMLInputElement} */ (document.getElementById(ratedId));
  const sync = () => {
    const other = !isStandard(select.value);
    if (other) rated.checked = false;
    rated.disabled = other;
    rated.title = other ? t("onCasualRules") : "";
  };
  select.addEventListener("change", sync);
  sync();
}

/** A speed's name ("blitz"), capitalised for the start of a line. @param {string} speed */
export const speedName = (speed) => (hasText("onSpeed:" + speed) ? t("onSpeed:" + speed) : speed);

/**
 * How a finished game ended, one sentence in the reader's language from its outcome code; an
 * unplayed game's abort says who did not move.
 * @param {any} s a game state
 */
export function resultSentence(s) {
  if (!s) return "";
  const missed = /^Aborted: (White|Black) did not move within (\d+) (s|days?)/.exec(s.description || "");
  if (s.outcome === "aborted" && missed) {
    const key = missed[3] === "s" ? "onAbortedFirst" : "onAbortedFirstDays";
    return t(key, { side: sideName(missed[1].toLowerCase()), n: missed[2] });
  }
  return s.outcome ? outcomeText({ code: s.outcome, reason: s.description }) : s.description || t("onOver");
}

/**
 * Fills a select of time controls: real time (the minutes and increment fields), or
 * "Correspondence: N days". @param {HTMLSelectElement} select
 */
export function fillDays(select) {
  const chosen = select.value;
  select.innerHTML = "";
  const live = document.createElement("option");
  live.value = "";
  live.textContent = t("onRealTime");
  select.appendChild(live);
  for (const n of CORRESPONDENCE_DAYS) {
    const o = document.createElement("option");
    o.value = String(n);
    o.textContent = n === 1 ? t("onCorrDay1") : t("onCorrDays", { n });
    select.appendChild(o);
  }
  select.value = chosen;
}

/** A correspondence turn's time left: "2d 5h" (hours rounded up), or "5:00:00" under a day. @param {number} ms */
export function daysHours(ms) {
  const hours = Math.ceil(Math.max(0, ms) / 3600000);
  if (hours < 24) return null;
  return t("onDaysHours", { d: Math.floor(hours / 24), h: hours % 24 });
}

/** A rating with "?" when it is provisional. @param {any} perf */
export function ratingText(perf) {
  return perf ? String(perf.rating) + (perf.provisional ? "?" : "") : "";
}

/**
 * Runs an action of a button: the button is disabled meanwhile, and a refusal is shown.
 * @template T @param {HTMLButtonElement|null} button @param {() => Promise<T>} fn @returns {Promise<T|undefined>}
 */
export async function act(button, fn) {
  if (button) button.disabled = true;
  try { return await fn(); } catch (e) { showError(e); return undefined; } finally { if (button) button.disabled = false; }
}

/** Copies a read-only field's text. @param {HTMLInputElement} input */
export async function copyField(input) {
  input.select();
  try { await navigator.clipboard.writeText(input.value); toast(t("onCopied"), 1500); } catch (_) {
    try { document.execCommand("copy"); toast(t("onCopied"), 1500); } catch (_) { toast(t("onSelectCopy")); }
  }
}

let leaving = false;
/** Opens the game `id` (once: a second call while the page leaves does nothing). @param {string} id */
export function go(id) {
  if (leaving) return;
  leaving = true;
  location.assign("/online/" + encodeURIComponent(id));
}
