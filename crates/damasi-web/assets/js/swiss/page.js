// The tournaments' page: /swiss lists them and has the form to organise one; /swiss/{id} shows
// one tournament (join, withdraw, the organiser's buttons, the standings and every round's
// games), kept live by its WebSocket (/api/swiss/{id}/socket).
import { $, titled } from "../util.js";
import { api, showError } from "../api.js";
import { t, applyI18n, wireLangs, toast } from "../i18n.js";
import { casualUnderOtherRules, fillDays, rulesText } from "../online/common.js";
import { playSound } from "../sound.js";
import { clockText, el, pointsText, statusText, systemText, tbText } from "./common.js";

/** @type {any} who is signed in ({id, name, guest}) or null */
let me = null;
/** @type {any} the tournament shown */
let view = null;
const match = location.pathname.match(/^\/(swiss|tournament)\/([A-Za-z0-9]+)\/?$/);
const id = match ? match[2] : null;
/** An arena (/tournament/{id}) rather than a Swiss (/swiss/{id}). */
const isArena = !!match && match[1] === "tournament";
const base = isArena ? "/api/tournament/" : "/api/swiss/";

async function loadMe() {
  try { me = await api("GET", "/api/account"); } catch { me = null; }
  $("header-who").textContent = me ? me.name : "";
}

async function showList() {
  $("list-view").hidden = false;
  $("login-hint").hidden = !!(me && !me.guest);
  $("create-form").hidden = !(me && !me.guest);
  const body = $("t-list").querySelector("tbody");
  try {
    // One list of every event, each once: GET /api/swiss lists the arenas too (kind "arena").
    const { tournaments } = await api("GET", "/api/swiss");
    for (const s of tournaments) s.arena = s.kind === "arena";
    body.innerHTML = "";
    if (!tournaments.length) {
      const row = el("tr");
      const cell = /** @type {HTMLTableCellElement} */ (el("td", t("swNone")));
      cell.colSpan = 5;
      row.append(cell);
      body.append(row);
    }
    for (const s of tournaments) {
      const row = el("tr");
      const name = el("td");
      const a = /** @type {HTMLAnchorElement} */ (el("a", s.name));
      a.href = (s.arena ? "/tournament/" : "/swiss/") + s.id;
      name.append(a);
      if (s.system === "roundRobin") name.append(el("span", " · " + systemText(s), "hint"));
      row.append(name, el("td", statusText(s.status)), el("td", String(s.nbPlayers)),
        el("td", s.arena ? t("swArenaMinutes", { n: s.minutes }) : `${s.round} / ${s.nbRounds}`), el("td", clockText(s.clock, s.days)));
      body.append(row);
    }
  } catch (e) { showError(e); }
}

async function create(/** @type {Event} */ e) {
  e.preventDefault();
  const starts = $("c-starts").value;
  if ($("c-kind").value === "arena") {
    try {
      const a = await api("POST", "/api/tournament", {
        name: $("c-name").value,
        clockTime: +$("c-minutes").value,
        clockIncrement: +$("c-increment").value,
        minutes: +$("c-duration").value,
        rated: $("c-rated").checked,
        variant: $("c-variant").value,
        password: $("c-password").value || null,
        startDate: starts ? new Date(starts).getTime() : null,
        conditions: { allowList: $("c-list").value || null },
      });
      location.href = "/tournament/" + a.id;
    } catch (err) { showError(err); }
    return;
  }
  const days = $("c-days").value;
  const kind = $("c-kind").value;
  const roundRobin = kind === "roundRobin" || kind === "doubleRoundRobin";
  const body = {
    name: $("c-name").value,
    // A correspondence Swiss: days a move instead of the clock.
    ...(days ? { days: Number(days) } : { clock: { limit: Math.round(+$("c-minutes").value * 60), increment: +$("c-increment").value } }),
    // A round robin's rounds follow from its players.
    ...(roundRobin ? { system: "roundRobin", double: kind === "doubleRoundRobin" } : { nbRounds: +$("c-rounds").value }),
    roundInterval: +$("c-pause").value,
    rated: $("c-rated").checked,
    variant: $("c-variant").value,
    password: $("c-password").value || null,
    startsAt: starts ? new Date(starts).getTime() : null,
    conditions: { allowList: $("c-list").value || null },
    ...($("c-tiebreaks").value ? { tiebreaks: $("c-tiebreaks").value } : {}),
  };
  try {
    const s = await api("POST", "/api/swiss/new", body);
    location.href = "/swiss/" + s.id;
  } catch (err) { showError(err); }
}

/**
 * Takes the player to their new game (#44: players left on the tournament page lost their
 * games by forfeit): a sound, the tab's title, then the game's page, where the first move's
 * 30 s are counted. Not in a correspondence event (its moves take days), and once a game:
 * coming back to the tournament's page leaves the player there.
 * @param {{id: string}|null|undefined} game
 */
function takeToGame(game) {
  if (!game || !game.id || view.days) return;
  const key = "damasi.takenTo." + game.id;
  if (sessionStorage.getItem(key)) return;
  sessionStorage.setItem(key, "1");
  playSound("low");
  document.title = "▶ " + t("swYourGameStarts");
  toast(t("swYourGameStarts"));
  setTimeout(() => { location.href = "/online/" + game.id; }, 700);
}

/** My line in the standings, if I am in the tournament. */
const myLine = () => (me && view ? view.standings.find((/** @type {any} */ l) => l.username === me.name) : null);

/** An arena: its clock, the standings with each player's sheet, the games being played. */
function renderArena() {
  const v = view;
  $("t-view").hidden = false;
  $("t-name").textContent = v.name;
  document.title = v.name + " · damasi";
  const info = [statusText(v.status), t("swArenaMinutes", { n: v.minutes }), t("swPlayerCount", { n: v.nbPlayers }),
    clockText(v.clock, v.days), v.rated ? t("swRated") : t("swCasual"), rulesText(v.rules), t("swOrganiser", { name: v.createdBy })];
  if (v.status === "started" && v.finishesAt) info.push(t("swTimeLeft", { m: Math.max(0, Math.ceil((v.finishesAt - Date.now()) / 60000)) }));
  $("t-info").textContent = info.join(" · ");
  $("link-print").href = `/tournament/${v.id}/print`;
  const players = v.standing.players;
  const mine = me ? players.find((/** @type {any} */ p) => p.username === me.name) : null;
  const open = v.status !== "finished";
  $("btn-join").hidden = !(me && (!me.guest || !v.rated) && open && (!mine || mine.paused));
  $("btn-join").textContent = mine && mine.paused ? t("swComeBack") : t("swJoin");
  $("t-password").hidden = $("btn-join").hidden || !v.password || !!mine;
  $("btn-withdraw").hidden = !(mine && !mine.paused && open);
  $("btn-withdraw").textContent = v.status === "started" ? t("swPause2") : t("swWithdraw");
  const organiser = !!me && me.name === v.createdBy;
  $("btn-start").hidden = !(organiser && v.status === "created");
  $("btn-start").textContent = t("swStartNow");
  $("btn-end").hidden = !(organiser && open);
  // Once the arena is over, no "Play it" stays behind, even for a game still being finished.
  const game = me && open && v.ongoing.find((/** @type {any} */ g) => g.white === me.name || g.black === me.name);
  if (v.status === "started") takeToGame(game);
  $("my-game").hidden = !game;
  $("my-game").innerHTML = "";
  if (game) {
    const a = /** @type {HTMLAnchorElement} */ (el("a", t("swYourGame", { white: game.white, black: game.black })));
    a.href = "/online/" + game.id;
    a.dataset.testid = "my-game-link";
    $("my-game").append(a);
  }
  $("podium").hidden = !v.podium;
  $("podium").innerHTML = "";
  for (const p of v.podium || []) $("podium").append(el("li", `${p.username} · ${p.score}`));
  const head = $("standings-head");
  head.innerHTML = "";
  // The games played, then the points each brought (lichess's sheet: 2 a win, 4 on a streak).
  for (const h of ["#", t("swName"), t("swScore"), t("swGamesPlayed"), t("swSheet")]) head.append(el("th", h));
  const body = $("standings").querySelector("tbody");
  body.innerHTML = "";
  for (const p of players) {
    const row = el("tr", undefined, p.paused ? "withdrawn" : "");
    row.append(el("td", String(p.rank)), el("td", titled(p.username, p.title) + (p.fire ? " 🔥" : "") + (p.paused ? " " + t("swPausedMark") : "")),
      el("td", String(p.score)), el("td", String(p.sheet.scores.length)), el("td", p.sheet.scores, "sheet"));
    body.append(row);
  }
  $("ongoing").hidden = !v.ongoing.length;
  const list = $("ongoing").querySelector("ol");
  list.innerHTML = "";
  for (const g of v.ongoing) {
    const item = el("li");
    const a = /** @type {HTMLAnchorElement} */ (el("a", `${g.white} – ${g.black}`));
    a.href = "/online/" + g.id;
    item.append(a);
    list.append(item);
  }
  $("rounds").innerHTML = "";
  $("swiss-links").hidden = true;
}

function render() {
  if (!view) return;
  if (isArena) { renderArena(); return; }
  const v = view;
  $("t-view").hidden = false;
  $("t-name").textContent = v.name;
  document.title = v.name + " · damasi";
  const roundRobin = v.system === "roundRobin";
  const info = [statusText(v.status), systemText(v), t("swRoundOf", { n: v.round, total: v.nbRounds }),
    t("swPlayerCount", { n: v.nbPlayers }), clockText(v.clock, v.days), v.rated ? t("swRated") : t("swCasual"),
    rulesText(v.rules), t("swOrganiser", { name: v.createdBy })];
  if (v.status === "created" && v.startsAt) info.push(t("swStartsAtTime", { time: new Date(v.startsAt).toLocaleString() }));
  if (v.nextRound) info.push(t("swNextRoundIn", { s: Math.max(0, Math.round((v.nextRound.at - Date.now()) / 1000)) }));
  $("t-info").textContent = info.join(" · ");

  const mine = myLine();
  // A round robin takes entries until it starts, a Swiss until its last round is paired.
  const open = roundRobin ? v.status === "created" : v.status !== "finished" && v.round < v.nbRounds;
  const canJoin = !!me && (!me.guest || !v.rated);
  $("btn-join").hidden = !(canJoin && open && (!mine || mine.withdrawn));
  $("t-password").hidden = $("btn-join").hidden || !v.password;
  $("btn-withdraw").hidden = !(mine && !mine.withdrawn && v.status !== "finished");
  const organiser = !!me && me.name === v.createdBy;
  const last = v.rounds[v.rounds.length - 1];
  const roundOver = !last || last.games.every((/** @type {any} */ g) => g.result);
  $("btn-start").hidden = !(organiser && (v.status === "created" || (v.status === "started" && roundOver && v.round < v.nbRounds)));
  $("btn-start").textContent = v.status === "created" ? t("swStartNow") : t("swNextRoundNow");
  $("btn-end").hidden = !(organiser && v.status !== "finished");

  // My game of the round in play.
  const game = me && last && last.games.find((/** @type {any} */ g) => !g.result && (g.white === me.name || g.black === me.name));
  if (v.status === "started") takeToGame(game);
  $("my-game").hidden = !game;
  $("my-game").innerHTML = "";
  if (game) {
    const a = /** @type {HTMLAnchorElement} */ (el("a", t("swYourGame", { white: game.white, black: game.black })));
    a.href = "/online/" + game.id;
    a.dataset.testid = "my-game-link";
    $("my-game").append(a);
  }

  const head = $("standings-head");
  head.innerHTML = "";
  for (const h of ["#", t("swName"), t("swPoints")]) head.append(el("th", h));
  // Each tie-break by its short name in the reader's language, explained under the table.
  const legend = $("tb-legend");
  legend.innerHTML = "";
  for (const tb of v.tieBreaks) {
    const th = el("th", tbText(tb));
    th.title = tbText(tb, "Long");
    head.append(th);
    legend.append(el("dt", tbText(tb)), el("dd", tbText(tb, "Long")));
  }
  const body = $("standings").querySelector("tbody");
  body.innerHTML = "";
  for (const l of v.standings) {
    const row = el("tr", undefined, l.withdrawn ? "withdrawn" : "");
    row.append(el("td", String(l.rank)), el("td", titled(l.username, l.title) + (l.withdrawn ? " " + t("swWithdrawnMark") : "")),
      el("td", pointsText(l.points)));
    for (const tb of l.tieBreaks) row.append(el("td", String(tb)));
    body.append(row);
  }

  renderCrosstable(v);

  const rounds = $("rounds");
  rounds.innerHTML = "";
  for (const r of [...v.rounds].reverse()) {
    const box = el("section", undefined, "round");
    box.dataset.round = String(r.number);
    box.append(el("h3", t("swRoundN", { n: r.number })));
    const list = el("ol");
    for (const g of r.games) {
      const item = el("li");
      const a = /** @type {HTMLAnchorElement} */ (el("a", `${g.white} – ${g.black}`));
      a.href = "/online/" + g.id;
      item.append(a, el("span", " " + (g.result || t("swPlaying")), "result"));
      list.append(item);
    }
    box.append(list);
    // A round robin's bye is a rest (no game, no points); a Swiss's a point.
    if (r.bye) box.append(el("p", t(roundRobin ? "swRest" : "swBye", { name: r.bye }), "hint"));
    rounds.append(box);
  }
  $("link-print").href = `/swiss/${v.id}/print`;
  $("link-trf").href = `/swiss/${v.id}.trf`;
  $("link-pdn").href = `/api/swiss/${v.id}/games`;
}

/**
 * The crosstable: a line a player in the standings' order, a column a round, each cell the
 * opponent's place, the colour and the result (`3w 1`, `5b ½`, `+` a forfeit won, `−` lost,
 * a bye or rest), then the points.
 * @param {any} v
 */
function renderCrosstable(v) {
  const table = $("crosstable");
  $("crosstable-box").hidden = !v.rounds.length;
  const place = new Map(v.standings.map((/** @type {any} */ l) => [l.username, l.rank]));
  const cells = new Map(v.standings.map((/** @type {any} */ l) => [l.username, /** @type {string[]} */ ([])]));
  const roundRobin = v.system === "roundRobin";
  v.rounds.forEach((/** @type {any} */ r, /** @type {number} */ i) => {
    for (const g of r.games) {
      const [w, b] = scores(g.result);
      const put = (/** @type {string} */ who, /** @type {string} */ them, /** @type {string} */ colour, /** @type {string} */ score) => {
        const line = cells.get(who);
        if (line) line[i] = score === "+" || score === "−" ? score : `${place.get(them) || "?"}${t(colour)} ${score}`;
      };
      put(g.white, g.black, "swW", w);
      put(g.black, g.white, "swB", b);
    }
    const bye = r.bye && cells.get(r.bye);
    if (bye) bye[i] = t(roundRobin ? "swRestCell" : "swByeCell");
  });
  const head = table.querySelector("thead tr");
  head.innerHTML = "";
  head.append(el("th", "#"), el("th", t("swName")));
  v.rounds.forEach((/** @type {any} */ r) => head.append(el("th", String(r.number))));
  head.append(el("th", t("swPoints")));
  const body = table.querySelector("tbody");
  body.innerHTML = "";
  for (const l of v.standings) {
    const row = el("tr");
    row.append(el("td", String(l.rank)), el("td", l.username));
    const line = cells.get(l.username) || [];
    v.rounds.forEach((/** @type {any} */ _r, /** @type {number} */ i) => row.append(el("td", line[i] || "")));
    row.append(el("td", pointsText(l.points)));
    body.append(row);
  }
}

/** White's and Black's scores in a board's result (`*` while it is played). @param {string|null} result */
function scores(result) {
  switch (result) {
    case "1-0": return ["1", "0"];
    case "0-1": return ["0", "1"];
    case "½-½": return ["½", "½"];
    case "+/-": return ["+", "−"];
    case "-/+": return ["−", "+"];
    default: return ["*", "*"];
  }
}

/** The tournament's live view: every change comes over the socket. */
function connect() {
  const ws = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}${base}${id}/socket`);
  ws.onmessage = (m) => {
    view = JSON.parse(m.data);
    render();
    document.body.dataset.ready = "1";
  };
  ws.onclose = () => {
    if (!view || view.status !== "finished") setTimeout(connect, 2000);
  };
}

/** @param {string} path @param {any} [body] @returns {Promise<boolean>} whether it was done */
async function post(path, body) {
  try {
    await api("POST", path, body);
    return true;
  } catch (e) { showError(e); return false; }
}

async function boot() {
  applyI18n();
  wireLangs(() => { if (id) render(); else { fillDays($("c-days")); showList(); } });
  await loadMe();
  if (!id) {
    $("create-form").addEventListener("submit", create);
    casualUnderOtherRules("c-variant", "c-rated");
    fillDays($("c-days"));
    // Days a move set the clock aside (a Swiss or a round robin: an arena's games are live).
    const clockFields = () => {
      const days = $("c-kind").value !== "arena" && !!$("c-days").value;
      /** @type {HTMLInputElement} */ ($("c-minutes")).disabled = days;
      /** @type {HTMLInputElement} */ ($("c-increment")).disabled = days;
    };
    $("c-days").addEventListener("change", clockFields);
    $("c-kind").addEventListener("change", () => {
      const kind = $("c-kind").value;
      const arena = kind === "arena";
      const roundRobin = kind === "roundRobin" || kind === "doubleRoundRobin";
      for (const e of document.querySelectorAll(".swiss-only")) /** @type {HTMLElement} */ (e).hidden = arena;
      for (const e of document.querySelectorAll(".arena-only")) /** @type {HTMLElement} */ (e).hidden = !arena;
      for (const e of document.querySelectorAll(".round-robin-only")) /** @type {HTMLElement} */ (e).hidden = !roundRobin;
      // A round robin's rounds follow from its players.
      $("c-rounds-label").hidden = arena || roundRobin;
      clockFields();
    });
    await showList();
    document.body.dataset.ready = "1";
    return;
  }
  $("btn-join").addEventListener("click", async () => {
    if (await post(`${base}${id}/join`, { password: $("t-password").value || null })) toast(t("swJoined"));
  });
  $("btn-withdraw").addEventListener("click", () => post(`${base}${id}/withdraw`));
  $("btn-start").addEventListener("click", () => post(`${base}${id}/start`));
  $("btn-end").addEventListener("click", () => { if (confirm(t("swEndSure"))) post(`${base}${id}/terminate`); });
  connect();
  // The arena's minutes left move on between updates.
  if (isArena) setInterval(() => { if (view && view.status === "started") render(); }, 15000);
}

boot();
