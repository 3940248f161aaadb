// The Study view's opening explorer (GET /api/explorer/lichess or /masters, lichess's shape):
// the moves played from the shown position, how often, with the share of White's wins,
// draws and Black's wins as a bar and the players' average rating; clicking a move plays it.
// The source (this server's games or the imported masters) and the speed and rating filters
// are kept while the page is open.
import { $ } from "../util.js";
import { t } from "../i18n.js";
import { api } from "../api.js";

const ex = { source: "lichess", speed: "", rating: "" };
let exAbort = null;

/** The query of the shown choices. @param {string} fen */
function query(fen) {
  let q = "/api/explorer/" + ex.source + "?moves=20&topGames=0&fen=" + encodeURIComponent(fen);
  // The masters have no recent games, speeds or bands (as on lichess): asking is refused.
  if (ex.source === "lichess") q += "&recentGames=0";
  if (ex.source === "lichess" && ex.speed) q += "&speeds=" + ex.speed;
  // "From a band up": that band and every higher one (lichess's ratings are the bands' lower bounds).
  if (ex.source === "lichess" && ex.rating) {
    const bands = [0, 1000, 1200, 1400, 1600, 1800, 2000, 2200, 2500];
    q += "&ratings=" + bands.filter((b) => b >= Number(ex.rating)).join(",");
  }
  return q;
}

/** A W/D/B bar: three parts as wide as their shares, each with its percent when it fits. */
function bar(w, d, b) {
  const el = document.createElement("div");
  el.className = "exbar";
  const total = w + d + b || 1;
  for (const [n, cls] of [[w, "w"], [d, "d"], [b, "b"]]) {
    const part = document.createElement("span");
    part.className = "ex-" + cls;
    const pct = Math.round((100 * n) / total);
    part.style.width = (100 * n) / total + "%";
    part.textContent = pct >= 12 ? pct + "%" : "";
    el.appendChild(part);
  }
  el.setAttribute("aria-label", t("exBar", { w, d, b }));
  return el;
}

/** A row of the table. @param {Node[]} cells @param {string} [cls] */
function row(cells, cls) {
  const tr = document.createElement("tr");
  if (cls) tr.className = cls;
  for (const c of cells) {
    const td = document.createElement("td");
    td.appendChild(c);
    tr.appendChild(td);
  }
  return tr;
}

const text = (/** @type {string} */ s) => document.createTextNode(s);

/**
 * Shows the explorer's answer for `fen`; `play` plays a legal move (one of `legal`, found by
 * its landing notation). `seq` is the study's: an answer for a position no longer shown is
 * dropped.
 * @param {string} fen @param {number} seq @param {() => number} current
 * @param {any[]} legal @param {(m: any) => void} play
 */
export async function explorerPanel(fen, seq, current, legal, play) {
  const panel = $("ex-panel");
  if (exAbort) exAbort.abort();
  exAbort = new AbortController();
  panel.setAttribute("aria-busy", "true");
  let a;
  try {
    a = await api("GET", query(fen), undefined, exAbort.signal);
  } catch (e) {
    // No server (the offline page), or a position it cannot read: no panel.
    if (e.name !== "AbortError" && seq === current()) {
      panel.hidden = true;
      panel.removeAttribute("aria-busy");
    }
    return;
  }
  if (seq !== current()) return;
  const body = $("ex-moves").querySelector("tbody");
  body.textContent = "";
  for (const m of a.moves) {
    const total = m.white + m.draws + m.black;
    const b = document.createElement("button");
    b.type = "button";
    b.className = "exmove";
    b.textContent = m.uci;
    const move = legal.find((l) => l.landing === m.uci);
    b.disabled = !move;
    if (move) b.addEventListener("click", () => play(move));
    body.appendChild(row([
      b, text(total.toLocaleString()), text(m.averageRating == null ? "–" : String(m.averageRating)), bar(m.white, m.draws, m.black),
    ]));
  }
  const total = a.white + a.draws + a.black;
  if (a.moves.length) {
    body.appendChild(row([text("Σ"), text(total.toLocaleString()), text(""), bar(a.white, a.draws, a.black)], "extotal"));
  }
  $("ex-empty").hidden = a.moves.length > 0;
  panel.hidden = false;
  panel.removeAttribute("aria-busy");
}

/** Wires the source buttons and the filters; `again` shows the panel anew. @param {() => void} again */
export function wireExplorer(again) {
  for (const source of ["lichess", "masters"]) {
    $("ex-src-" + source).addEventListener("click", () => {
      ex.source = source;
      for (const s of ["lichess", "masters"]) $("ex-src-" + s).setAttribute("aria-pressed", String(s === source));
      // The masters have no speeds or bands (as on lichess).
      $("ex-filters").hidden = source === "masters";
      again();
    });
  }
  const speed = /** @type {HTMLSelectElement} */ ($("ex-speed"));
  const rating = /** @type {HTMLSelectElement} */ ($("ex-rating"));
  speed.addEventListener("change", () => { ex.speed = speed.value; again(); });
  rating.addEventListener("change", () => { ex.rating = rating.value; again(); });
}
