// A tournament's pairings and standings for the wall (/swiss/{id}/print, /tournament/{id}/print;
// #44): the event's name, the round in play (or the last one) board by board, the standings
// with the tie-breaks named and explained; black on white for A4 (print.css). It follows the
// tournament's socket, so a screen on the wall stays current too.
import { $, titled } from "../util.js";
import { t, applyI18n, wireLangs, getLang } from "../i18n.js";
import { clockText, el, pointsText, statusText, systemText, tbText } from "./common.js";

const match = location.pathname.match(/^\/(swiss|tournament)\/([A-Za-z0-9]+)\/print\/?$/);
const id = match ? match[2] : "";
/** An arena (/tournament/{id}/print) rather than a Swiss or round robin. */
const isArena = !!match && match[1] === "tournament";
const page = `/${isArena ? "tournament" : "swiss"}/${id}`;
const base = isArena ? "/api/tournament/" : "/api/swiss/";
/** @type {any} the tournament as the API gives it */
let view = null;

/**
 * Fills the table's body with `rows`, each a list of cells (a cell is its text, or
 * `[text, class]`).
 * @param {HTMLElement} table @param {(string | [string, string])[][]} rows @param {(i: number) => string} [rowClass]
 */
function fill(table, rows, rowClass) {
  const body = /** @type {HTMLElement} */ (table.querySelector("tbody"));
  body.innerHTML = "";
  rows.forEach((cells, i) => {
    const tr = el("tr", undefined, rowClass ? rowClass(i) : "");
    for (const c of cells) tr.append(Array.isArray(c) ? el("td", c[0], c[1]) : el("td", c));
    body.append(tr);
  });
}

/** @param {string[]} names @param {string[]} [numeric] the names of the columns of numbers */
function head(names, numeric = []) {
  const row = $("p-standings-head");
  row.innerHTML = "";
  for (const n of names) row.append(el("th", n, numeric.includes(n) ? "num" : ""));
}

function render() {
  if (!view) return;
  const v = view;
  $("p-main").hidden = false;
  document.title = `${v.name} · ${t("prTitle")}`;
  $("p-name").textContent = v.name;
  /** @type {string[]} */
  const info = isArena
    ? [t("swArenaMinutes", { n: v.minutes }), clockText(v.clock, v.days), statusText(v.status), t("swPlayerCount", { n: v.nbPlayers })]
    : [systemText(v), clockText(v.clock, v.days), t("swRoundOf", { n: v.round, total: v.nbRounds }), statusText(v.status), t("swPlayerCount", { n: v.nbPlayers })];
  $("p-info").textContent = info.join(" · ");
  if (isArena) renderArena(v); else renderSwiss(v);
  $("p-foot").textContent = t("prFoot", { url: location.origin + page, time: new Date().toLocaleString(getLang()) });
  $("p-back").href = page;
}

/** A Swiss or a round robin: the last round's boards, then the standings with the tie-breaks. @param {any} v */
function renderSwiss(v) {
  const round = v.rounds[v.rounds.length - 1];
  $("p-round-title").textContent = round ? t("swRoundN", { n: round.number }) : t("prNoRound");
  $("p-pairings").hidden = !round;
  fill($("p-pairings"), round ? round.games.map((/** @type {any} */ g, /** @type {number} */ i) =>
    [[String(i + 1), "num"], g.white, g.black, [g.result || "", "result"]]) : []);
  $("p-none").hidden = true;
  $("p-bye").hidden = !(round && round.bye);
  $("p-bye").textContent = round && round.bye ? t(v.system === "roundRobin" ? "swRest" : "swBye", { name: round.bye }) : "";
  const tbs = v.tieBreaks.map((/** @type {string} */ tb) => tbText(tb));
  head(["#", t("swName"), t("swPoints"), ...tbs], ["#", t("swPoints"), ...tbs]);
  fill($("p-standings"), v.standings.map((/** @type {any} */ l) => [
    [String(l.rank), "num"], titled(l.username, l.title) + (l.withdrawn ? " " + t("swWithdrawnMark") : ""), [pointsText(l.points), "num"],
    ...l.tieBreaks.map((/** @type {number} */ x) => /** @type {[string, string]} */ ([String(x), "num"]))]),
  (i) => (v.standings[i].withdrawn ? "withdrawn" : ""));
  const legend = $("p-legend");
  legend.innerHTML = "";
  for (const tb of v.tieBreaks) legend.append(el("dt", tbText(tb)), el("dd", tbText(tb, "Long")));
}

/** An arena: the games being played, then the standings with each player's points by game. @param {any} v */
function renderArena(v) {
  $("p-round-title").textContent = t("swOngoing");
  $("p-pairings").hidden = !v.ongoing.length;
  fill($("p-pairings"), v.ongoing.map((/** @type {any} */ g, /** @type {number} */ i) => [[String(i + 1), "num"], g.white, g.black, ["", "result"]]));
  $("p-none").hidden = !!v.ongoing.length;
  $("p-none").textContent = t("prNoGames");
  $("p-bye").hidden = true;
  head(["#", t("swName"), t("swScore"), t("swGamesPlayed"), t("swSheet")], ["#", t("swScore"), t("swGamesPlayed")]);
  fill($("p-standings"), v.standing.players.map((/** @type {any} */ p) => [
    [String(p.rank), "num"], p.username + (p.paused ? " " + t("swPausedMark") : ""), [String(p.score), "num"],
    [String(p.sheet.scores.length), "num"], p.sheet.scores]),
  (i) => (v.standing.players[i].paused ? "withdrawn" : ""));
  $("p-legend").innerHTML = "";
}

/** Every change of the tournament comes over its socket. */
function connect() {
  const ws = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}${base}${id}/socket`);
  ws.onmessage = (m) => { view = JSON.parse(m.data); render(); };
  ws.onclose = () => { if (view && view.status !== "finished") setTimeout(connect, 2000); };
}

async function boot() {
  applyI18n();
  wireLangs(render);
  $("btn-print").addEventListener("click", () => window.print());
  $("p-back").href = page;
  const res = id ? await fetch(base + id) : null;
  if (!res || !res.ok) {
    $("p-missing").hidden = false;
    $("p-missing").textContent = t("prMissing");
    document.body.dataset.ready = "1";
    return;
  }
  view = await res.json();
  render();
  document.body.dataset.ready = "1";
  if (view.status !== "finished") connect();
}

boot();
