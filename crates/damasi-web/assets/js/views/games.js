// The games view: the saved games (resume, PDN, delete) and the PDN import.
import { $ } from "../util.js";
import { t, tn, outcomeText, announce, toast } from "../i18n.js";
import { api, ApiError, importErrorText, showError } from "../api.js";
import { loadGame } from "./play.js";
import { setMode } from "../router.js";
import { hasVariationsOrComments, pdnToTree, skeletonToText, splitPdnGames } from "../tree.js";
import { START_FEN } from "../position.js";

// A saved game's ending in the reader's language: from its outcome code (the summary gives
// it as `outcome`, a code or an object with one), else the stored sentence.
export function summaryOutcome(g) {
  const o = g.outcome;
  const code = typeof o === "string" ? o : (o && o.code) || g.code || "";
  return code ? outcomeText({ code, reason: g.reason }, !!g.result_only) : g.reason || "";
}

export function playerShort(p) { return p.kind === "engine" ? t("engineLevel", { n: p.level }) : t("person"); }

export async function renderGames() {
  const body = $("games-body");
  try {
    const list = await api("GET", "/api/games");
    body.innerHTML = "";
    if (!list.length) {
      body.innerHTML = `<tr><td colspan="7" class="muted"></td></tr>`;
      body.querySelector("td").textContent = t("noGames");
      return;
    }
    for (const g of list) {
      const tr = document.createElement("tr");
      tr.dataset.id = g.id;
      const cells = [String(g.id), g.updated.slice(0, 16), g.white_name || playerShort(g.white),
        g.black_name || playerShort(g.black), String(Number.isInteger(g.moves) ? g.moves : Math.ceil(g.plies / 2)), g.result === "*" && !g.outcome ? t("inProgress") : g.result];
      for (const c of cells) { const td = document.createElement("td"); td.textContent = c; tr.appendChild(td); }
      tr.children[1].className = "nowrap";
      if (g.event) {
        const ev = document.createElement("div");
        ev.className = "muted small";
        ev.textContent = g.event;
        tr.children[2].appendChild(ev);
      }
      const why = summaryOutcome(g);
      if (why) {
        const el = document.createElement("div");
        el.className = "muted small";
        el.textContent = why;
        tr.children[5].appendChild(el);
      }
      const acts = document.createElement("td");
      const open = document.createElement("button");
      open.textContent = t("resume");
      open.className = "resume";
      open.addEventListener("click", async () => {
        try { await loadGame(g.id); setMode("play"); } catch (e) { showError(e); }
      });
      const rv = document.createElement("a");
      rv.className = "button review";
      rv.textContent = t("review");
      rv.href = `#/review/${g.id}`;
      const pdn = document.createElement("a");
      pdn.className = "button";
      pdn.textContent = "PDN";
      pdn.href = `/api/games/${g.id}/pdn`;
      pdn.setAttribute("download", `damasi-game-${g.id}.pdn`);
      const del = document.createElement("button");
      del.textContent = t("del");
      del.addEventListener("click", async () => {
        if (!confirm(t("confirmDelete", { n: g.id }))) return;
        try { await api("DELETE", `/api/games/${g.id}`); renderGames(); } catch (e) { showError(e); }
      });
      // An imported record with variations or comments: a study that holds them.
      const st = document.createElement("button");
      st.className = "study";
      st.textContent = t("tabStudy");
      st.title = t("studyGame", { n: g.id });
      st.addEventListener("click", async () => {
        try {
          const game = await api("GET", `/api/games/${g.id}`);
          const link = studyLinkOf(game);
          if (link) location.hash = link;
        } catch (e) { showError(e); }
      });
      const box = document.createElement("div");
      box.className = "acts";
      box.append(open, ...(g.plies ? [rv] : []), ...(g.annotated ? [st] : []), pdn, del);
      acts.appendChild(box);
      tr.appendChild(acts);
      body.appendChild(tr);
    }
  } catch (e) { showError(e); }
}

// Every good game of the file is saved; each broken one is listed with its line.
export async function importPdn(text) {
  try {
    const res = await api("POST", "/api/pdn/import", { pdn: text });
    const ids = Array.isArray(res && res.ids) ? res.ids : [];
    const errors = Array.isArray(res && res.errors) ? res.errors : [];
    const msg = tn("imported", ids.length) + (errors.length ? ". " + tn("importBroken", errors.length) : "");
    toast(msg, errors.length ? 7000 : 3500);
    announce(msg);
    showImportReport(ids.length, errors, ids, studyLinks(text, ids, errors));
    if (ids.length) $("pdn-text").value = "";
    await renderGames();
  } catch (e) {
    if (e instanceof ApiError) e.about = "pdn";
    showError(e);
  }
}

/** The study of a saved game's own movetext (`tags._movetext`), if it has one. @param {any} game */
export function studyLinkOf(game) {
  const own = game && game.tags && typeof game.tags._movetext === "string" ? game.tags._movetext : "";
  if (!own) return "";
  try {
    const q = new URLSearchParams({ fen: game.start_fen, tree: skeletonToText(pdnToTree(own)) });
    return "#/study?" + q.toString();
  } catch (_) { return ""; }
}

/**
 * The server keeps a game's main line (and an annotated game's own movetext, see
 * studyLinkOf): for each imported game whose file has variations
 * or comments, the address of a study that holds them all (by the game's id).
 * @param {string} text @param {number[]} ids @param {{game: number}[]} errors
 * @returns {Map<number, string>}
 */
export function studyLinks(text, ids, errors) {
  const links = new Map();
  let games;
  try { games = splitPdnGames(text); } catch (_) { return links; }
  // Only when this page reads the file into as many games as the server did.
  if (games.length !== ids.length + errors.length) return links;
  const broken = new Set(errors.map((e) => e.game));
  let k = 0;
  games.forEach((g, i) => {
    if (broken.has(i + 1)) return;
    const id = ids[k++];
    let tree;
    try { tree = pdnToTree(g.movetext); } catch (_) { return; }
    if (!hasVariationsOrComments(tree)) return;
    const fen = (/\[FEN\s+"([^"]*)"\]/.exec(g.tags) || [])[1] || START_FEN;
    const q = new URLSearchParams({ fen, tree: skeletonToText(tree) });
    links.set(id, "#/study?" + q.toString());
  });
  return links;
}

// `ids`: the imported games, each with a link to its review (and to a study with its
// variations and comments, when `studies` has one).
/** @param {number} imported @param {any[]} errors @param {number[]} [ids] @param {Map<number, string>} [studies] */
export function showImportReport(imported, errors, ids = [], studies = new Map()) {
  const box = $("pdn-report");
  box.hidden = false;
  $("pdn-report-head").textContent = tn("imported", imported) + (errors.length ? ". " + tn("importBroken", errors.length) : "");
  const list = $("pdn-report-list");
  list.innerHTML = "";
  for (const err of errors) {
    const li = document.createElement("li");
    li.textContent = importErrorText(err);
    list.appendChild(li);
  }
  // The reviews in a list of their own: the first list is the broken games.
  const reviews = $("pdn-report-reviews");
  reviews.innerHTML = "";
  for (const id of ids.slice(0, 20)) {
    const li = document.createElement("li");
    const a = document.createElement("a");
    a.href = `#/review/${id}`;
    a.className = "reviewlink";
    a.textContent = t("reviewGame", { n: id });
    li.appendChild(a);
    const study = studies.get(id);
    if (study) {
      const s = document.createElement("a");
      s.href = study;
      s.className = "studylink";
      s.textContent = t("studyGame", { n: id });
      li.append(" · ", s);
    }
    reviews.appendChild(li);
  }
}
