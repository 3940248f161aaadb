// The position editor (in the study view): pieces placed by clicking squares, then the
// position checked by the server and studied.
import { $ } from "../util.js";
import { t, toast, announce } from "../i18n.js";
import { api, showFenError } from "../api.js";
import { parseFen, fenOf } from "../position.js";
import { board } from "../board/index.js";
import { study } from "../state.js";
import { setStatusNote } from "./play.js";
import { startStudy, studyFen, studyShow, stopAnalysis } from "./study.js";
import { syncUrl } from "../router.js";

export function startEditor() {
  study.editing = true;
  study.seq++;
  stopAnalysis();
  $("an-score").textContent = "–"; $("an-pv").textContent = "–"; $("an-depth").textContent = "";
  study.edit = parseFen(studyFen());
  $("editor").hidden = false;
  $("ed-side").value = study.edit.side;
  board.editTool = study.tool;
  board.onEdit = editSquare;
  board.set(studyFen(), {});
  board.pos = study.edit;
  board.drawPieces();
  setStatusNote(t("editing"));
  updateEditorFen();
  syncUrl("push");
}

export function editSquare(sq) {
  const tool = study.tool;
  const cur = study.edit.pieces[sq];
  if (tool === "x") delete study.edit.pieces[sq];
  else {
    const want = { c: tool[0], k: tool[1] === "k" };
    if (cur && cur.c === want.c && cur.k === want.k) delete study.edit.pieces[sq];
    else study.edit.pieces[sq] = want;
  }
  board.pos = study.edit;
  board.drawPieces();
  updateEditorFen();
}

export function updateEditorFen() {
  study.edit.side = $("ed-side").value;
  $("fen-input").value = fenOf(study.edit.pieces, study.edit.side);
  syncUrl("replace");
}

export async function finishEditor() {
  // A side without pieces has lost already: nothing to study or play.
  const colours = new Set(Object.values(study.edit.pieces).map((p) => p.c));
  if (!colours.has("w") || !colours.has("b")) {
    const msg = t("editorNeedsPieces");
    toast(msg, 5000);
    announce(msg);
    return;
  }
  const fen = fenOf(study.edit.pieces, $("ed-side").value);
  try {
    const v = await api("GET", "/api/moves?fen=" + encodeURIComponent(fen));
    study.editing = false;
    board.editTool = null;
    board.onEdit = null;
    $("editor").hidden = true;
    startStudy(v.fen);
    studyShow();
  } catch (e) {
    showFenError(e);
  }
}

export async function loadFen(fen) {
  try {
    const v = await api("GET", "/api/moves?fen=" + encodeURIComponent(fen));
    if (study.editing) { study.editing = false; board.editTool = null; $("editor").hidden = true; }
    startStudy(v.fen);
    studyShow();
  } catch (e) { showFenError(e); }
}

/** The address of the editor with its position. */
export function editorUrl() {
  return "#/editor?" + new URLSearchParams({ fen: fenOf(study.edit.pieces, study.edit.side) }).toString();
}
