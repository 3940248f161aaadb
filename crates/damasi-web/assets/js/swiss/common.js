// What the tournament's page (page.js) and its printable view (print.js) both write: a
// tournament's control, status, system, points and tie-breaks in the reader's language.
import { t, hasText } from "../i18n.js";

/** A tournament's control: "5+3", or "3 days a move" for a correspondence Swiss. @param {any} c @param {number | null | undefined} days */
export const clockText = (c, days) =>
  days ? (days === 1 ? t("onDayAMove") : t("onDaysAMove", { n: days })) : `${+(c.limit / 60).toFixed(2)}+${c.increment}`;
/** @param {string} s */
export const statusText = (s) => t("swStatus:" + s);
/** How a tournament is paired: "Swiss", "Round robin", "Double round robin". @param {any} v */
export const systemText = (v) => t(v.system !== "roundRobin" ? "swSystem:swiss" : v.double ? "swSystem:doubleRoundRobin" : "swSystem:roundRobin");
/** A number of points as people write them: 2½. @param {number} p */
export const pointsText = (p) => (Number.isInteger(p) ? String(p) : `${Math.floor(p) || ""}½`);

/**
 * A tie-break's short name (FIDE's abbreviation, e.g. `BH-C1`) or, with `"Long"`, what it
 * counts, in the reader's language; an abbreviation this page does not know as it is.
 * @param {string} abbreviation @param {string} [form]
 */
export function tbText(abbreviation, form = "") {
  const key = "tb:" + abbreviation + form;
  return hasText(key) ? t(key) : abbreviation;
}

/** @param {string} tag @param {string} [text] @param {string} [cls] */
export function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  if (cls) e.className = cls;
  return e;
}
