// Beside the board: the pieces each side has taken and who is ahead, counted from the shown
// position (16 pieces a side at the start of a game).
import { $ } from "../util.js";
import { t } from "../i18n.js";

/** @param {{pieces: Record<string, {c: string, k: boolean}>}} pos @param {boolean} flipped */
export function renderMaterial(pos, flipped) {
  const count = { w: 0, b: 0 };
  for (const p of Object.values(pos.pieces)) count[p.c]++;
  const top = flipped ? "w" : "b";
  for (const [id, me] of [["mat-top", top], ["mat-bottom", top === "w" ? "b" : "w"]]) {
    const el = $(id);
    if (!el) continue;
    const them = me === "w" ? "b" : "w";
    const taken = Math.max(0, 16 - count[them]);
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
