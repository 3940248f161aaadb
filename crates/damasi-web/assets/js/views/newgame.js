// The new game dialog: opponent, level, colour, time control and rules; its choices are kept
// for the next game.
import { $, $$ } from "../util.js";
import { study } from "../state.js";
import { levelName } from "../i18n.js";
import { studyFen } from "./study.js";

export function openNewDialog(fromStudy) {
  $("new-from-fen").checked = !!fromStudy;
  $("new-from-fen").parentElement.hidden = !study.start;
  const dlg = $("new-dialog");
  dlg.returnValue = "";
  dlg.showModal();
}

export function newGameBody() {
  const opp = $('new-form').querySelector('input[name="opp"]:checked').value;
  const level = Number($("new-level").value);
  let color = $("new-color").value;
  if (color === "random") color = Math.random() < 0.5 ? "white" : "black";
  const body = {};
  if (opp === "engine") {
    body.white = color === "white" ? { kind: "human" } : { kind: "engine", level };
    body.black = color === "black" ? { kind: "human" } : { kind: "engine", level };
  } else {
    body.white = { kind: "human" };
    body.black = { kind: "human" };
  }
  body.rules = $("new-rules").value;
  const tc = $("new-time").value;
  if (tc) { const [mins, inc] = tc.split("+").map(Number); body.clock = { minutes: mins, increment_s: inc }; }
  if ($("new-from-fen").checked && study.start) body.fen = studyFen();
  localStorage.setItem("damasi.new", JSON.stringify({ opp, level, color: $("new-color").value, tc }));
  return body;
}

export function restoreNewDefaults() {
  try {
    const d = JSON.parse(localStorage.getItem("damasi.new") || "null");
    if (!d) return;
    for (const r of $$('input[name="opp"]')) r.checked = r.value === d.opp;
    $("new-level").value = d.level; $("new-level-out").textContent = levelName(Number(d.level));
    $("new-color").value = d.color; $("new-time").value = d.tc;
    $("engine-opts").disabled = d.opp !== "engine";
  } catch (_) { /* defaults stay */ }
}
