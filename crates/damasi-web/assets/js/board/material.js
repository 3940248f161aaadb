// Beside the board: the pieces each side has taken since the start of what is shown (a game,
// a study, an exercise or a puzzle: its own start position, not 16 a side) and who is ahead.
import { $ } from "../util.js";
import { t } from "../i18n.js";
import { parseFen } from "../position.js";

/** @param {{pieces: Record<string, {c: string, k: boolean}>}} pos */
function counted(pos) {
  const count = { w: 0, b: 0 };
  for (const p of Object.values(pos.pieces)) count[p.c]++;
  return count;
}

/**
 * @param {{pieces: Record<string, {c: string, k: boolean}>}} pos
 * @param {boolean} flipped
 * @param {string|null} startFen  the position the shown line started from; null (the
 *   editor): no captures to count, only who is ahead
 */
export function renderMaterial(pos, flipped, startFen) {
  const count = counted(pos);
  let start = count;
  if (startFen) { try { start = counted(parseFen(startFen)); } catch (_) { start = count; } }
  const top = flipped ? "w" : "b";
  for (const [id, me] of [["mat-top", top], ["mat-bottom", top === "w" ? "b" : "w"]]) {
    const el = $(id);
    if (!el) continue;
    const them = me === "w" ? "b" : "w";
    const taken = Math.max(0, start[them] - count[them]);
    const diff = count[me] - count[them];
    el.textContent = "";
    el.dataset.taken = String(taken);
    el.dataset.diff = String(diff);
    if (taken) {
      const disc = document.createElement("span");
      disc.className = "capdisc " + them;
      el.append(disc, "×" + taken);
    }
    if (diff > 0) {
      const lead = document.createElement("span");
      lead.className = "lead";
      lead.textContent = "+" + diff;
      el.append(lead);
    }
    el.title = t("capturedN", { n: taken }) + (diff ? " · " + t("material", { diff: (diff > 0 ? "+" : "") + diff }) : "");
  }
}
