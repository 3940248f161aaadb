// A player's page at /@/{name}: ratings, the rating graph (inline SVG), the record, the
// games with filters and pages, and follow / block / challenge; and the leaderboards at
// /player. The server's API: GET /api/user/{name}[/games|/rating-history],
// POST /api/rel/{follow,unfollow,block,unblock}/{name}, POST /api/challenge/{name},
// GET /api/player/top/{nb}/{speed}.
import { $, titled } from "../util.js";
import { ApiError, api, showError } from "../api.js";
import { t, getLang } from "../i18n.js";
import { act, cap, casualUnderOtherRules, clockText, fillDays, go, ratingText, speedName } from "./common.js";
import { session } from "./account.js";
import { openReport } from "./moderation.js";
import { pointsText, statusText, systemText } from "../swiss/common.js";

const SPEEDS = ["bullet", "blitz", "rapid", "classical", "correspondence"];
const COLORS = { bullet: "#c62828", blitz: "#1565c0", rapid: "#2e7d32", classical: "#6a1b9a", correspondence: "#ef6c00" };
const PAGE = 10;
const SVG = "http://www.w3.org/2000/svg";

const view = {
  /** the name in the address */
  name: "",
  /** @type {any} the profile (GET /api/user/{name}) */
  profile: null,
  /** @type {any[]} the rating history */
  history: [],
  /** @type {any} the page of games shown */
  games: null,
  page: 1,
};

const path = (/** @type {string} */ name) => "/api/user/" + encodeURIComponent(name);

/** A date as the reader's language writes it. @param {number} ms */
const dateText = (ms) => new Date(ms).toLocaleDateString(getLang() === "tr" ? "tr-TR" : "en-GB");

/** The SVG element `tag` with `attrs`. @param {string} tag @param {Record<string, any>} attrs */
function svg(tag, attrs) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  return el;
}

/**
 * Draws the rating history: one line per speed class, the points in the order the games
 * ended (so games close in time stay apart), the rating scale on the left.
 * @param {HTMLElement} box @param {any[]} series [{speed, points: [[ms, rating]]}]
 */
export function drawGraph(box, series) {
  box.innerHTML = "";
  const all = series.flatMap((s) => s.points.map((/** @type {number[]} */ p) => ({ speed: s.speed, at: p[0], rating: p[1] })));
  if (!all.length) {
    const p = document.createElement("p");
    p.className = "muted";
    p.textContent = t("onNoHistory");
    box.appendChild(p);
    return;
  }
  all.sort((a, b) => a.at - b.at);
  const W = 600, H = 220, L = 44, R = 10, T = 10, B = 20;
  let lo = Math.min(...all.map((p) => p.rating)), hi = Math.max(...all.map((p) => p.rating));
  lo = Math.floor((lo - 20) / 50) * 50;
  hi = Math.ceil((hi + 20) / 50) * 50;
  const x = (/** @type {number} */ i) => L + (all.length === 1 ? (W - L - R) / 2 : (i * (W - L - R)) / (all.length - 1));
  const y = (/** @type {number} */ r) => T + ((hi - r) * (H - T - B)) / (hi - lo);
  const root = svg("svg", { viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": t("onRatingHistory") });
  const step = hi - lo > 400 ? 200 : hi - lo > 200 ? 100 : 50;
  for (let r = lo; r <= hi; r += step) {
    root.appendChild(svg("line", { class: "axis", x1: L, x2: W - R, y1: y(r), y2: y(r) }));
    const label = svg("text", { x: L - 6, y: y(r) + 4, "text-anchor": "end" });
    label.textContent = String(r);
    root.appendChild(label);
  }
  for (const speed of SPEEDS) {
    const mine = all.map((p, i) => ({ ...p, i })).filter((p) => p.speed === speed);
    if (!mine.length) continue;
    const line = svg("polyline", {
      class: "series", stroke: COLORS[speed], "data-speed": speed,
      points: mine.map((p) => `${x(p.i).toFixed(1)},${y(p.rating).toFixed(1)}`).join(" "),
    });
    root.appendChild(line);
    for (const p of mine) {
      const dot = svg("circle", { cx: x(p.i).toFixed(1), cy: y(p.rating).toFixed(1), r: 3, fill: COLORS[speed] });
      const title = svg("title", {});
      title.textContent = `${cap(speedName(speed))} ${p.rating} · ${dateText(p.at)}`;
      dot.appendChild(title);
      root.appendChild(dot);
    }
  }
  box.appendChild(root);
  const legend = document.createElement("div");
  legend.className = "legend";
  for (const s of series) {
    const span = document.createElement("span");
    const sw = document.createElement("span");
    sw.className = "swatch";
    sw.style.background = COLORS[s.speed] || "#888";
    span.append(sw, cap(speedName(s.speed)));
    legend.appendChild(span);
  }
  box.appendChild(legend);
}

function renderProfile() {
  const p = view.profile;
  if (!p) return;
  document.title = t("onTitleProfile", { name: p.name });
  $("pr-name").textContent = titled(p.name, p.title);
  $("pr-online").hidden = !p.online;
  const me = session.me;
  const mine = me && me.name.toLowerCase() === p.name.toLowerCase();
  $("pr-actions").hidden = !me || mine;
  const canRelate = me && !me.guest;
  $("btn-follow").hidden = !canRelate;
  $("btn-report").hidden = !canRelate;
  $("btn-block").hidden = !canRelate;
  $("btn-follow").textContent = t(p.following ? "onUnfollow" : "onFollow");
  $("btn-follow").setAttribute("aria-pressed", String(!!p.following));
  $("btn-block").textContent = t(p.blocking ? "onUnblock" : "onBlock");
  $("btn-block").setAttribute("aria-pressed", String(!!p.blocking));
  const list = $("pr-ratings");
  list.innerHTML = "";
  const perfs = Object.entries(p.perfs || {});
  if (!perfs.length) {
    const li = document.createElement("li");
    li.className = "muted";
    li.textContent = t("onNoRatedThem");
    list.appendChild(li);
  }
  for (const [speed, perf] of perfs) {
    const li = document.createElement("li");
    li.dataset.testid = "profile-rating-" + speed;
    li.append(cap(speedName(speed)) + " ");
    const strong = document.createElement("strong");
    strong.textContent = ratingText(perf);
    li.appendChild(strong);
    li.append(" " + t(perf.games === 1 ? "onOneGame" : "onGames", { n: perf.games }));
    list.appendChild(li);
  }
  const c = p.count || { all: 0, win: 0, draw: 0, loss: 0 };
  $("pr-record").textContent = t("onRecord", { all: c.all, win: c.win, draw: c.draw, loss: c.loss });
  drawGraph($("pr-graph"), view.history);
  renderEvents(p.tournaments || []);
}

/**
 * The events the player entered (#44): each one's name (a link to its page), kind, state,
 * and the player's place and points there (an arena's score); "entered" before the start.
 * @param {any[]} events as GET /api/user/{name} lists them
 */
function renderEvents(events) {
  const body = $("pr-tournaments");
  body.innerHTML = "";
  /** @param {string} text */
  const cell = (text) => { const td = document.createElement("td"); td.textContent = text; return td; };
  for (const tm of events) {
    const tr = document.createElement("tr");
    tr.dataset.testid = "profile-event";
    tr.dataset.id = tm.id;
    const name = document.createElement("td");
    const a = document.createElement("a");
    a.href = (tm.kind === "arena" ? "/tournament/" : "/swiss/") + tm.id;
    a.textContent = tm.name;
    name.appendChild(a);
    const me = tm.player;
    const arena = tm.kind === "arena";
    const place = !me ? "" : tm.status === "created" ? t("onEntered") :
      t("onPlaceOf", { rank: me.rank, n: tm.nbPlayers }) + (me.withdrawn ? " " + t("swWithdrawnMark") : "");
    const points = !me || tm.status === "created" ? "" : arena ? String(me.score) : pointsText(me.points);
    tr.append(name, cell(arena ? t("swSystem:arena") : systemText(tm)), cell(statusText(tm.status)), cell(place), cell(points));
    body.appendChild(tr);
  }
  if (!events.length) {
    const tr = document.createElement("tr");
    const td = cell(t("onNoTournaments"));
    td.colSpan = 5;
    td.className = "muted";
    tr.appendChild(td);
    body.appendChild(tr);
  }
}

function renderGames() {
  const body = $("pr-games");
  body.innerHTML = "";
  const data = view.games;
  if (!data) return;
  if (!data.games.length) {
    const tr = document.createElement("tr");
    const td = document.createElement("td");
    td.colSpan = 5;
    td.className = "muted";
    td.textContent = t("onNoGames");
    tr.appendChild(td);
    body.appendChild(tr);
  }
  const name = view.profile ? view.profile.name : view.name;
  for (const g of data.games) {
    const tr = document.createElement("tr");
    tr.dataset.testid = "profile-game";
    const players = document.createElement("td");
    const a = document.createElement("a");
    a.href = "/online/" + encodeURIComponent(g.id);
    a.textContent = `${g.white || "?"} – ${g.black || "?"}`;
    players.appendChild(a);
    // "white", "black" or "draw"; nothing for an aborted game (never played: #44 showed it lost).
    const who = g.outcome && g.outcome !== "aborted" ? g.outcome.split(":")[0] : "";
    const side = g.white === name ? "white" : "black";
    const result = document.createElement("td");
    result.textContent = g.status === "open" ? t("onOpen") : g.status === "playing" ? t("onPlaying") :
      who === "draw" ? t("onDrawShort") : who === side ? t("onWinShort") : who ? t("onLossShort") : t("onAbortedShort");
    const diff = g.ratingDiff && g.ratingDiff[side];
    if (typeof diff === "number") result.append(` (${diff > 0 ? "+" : ""}${diff})`);
    const time = document.createElement("td");
    time.textContent = `${clockText(g.clock)} ${speedName(g.speed)}`;
    const mode = document.createElement("td");
    mode.textContent = t(g.rated ? "onRatedWord" : "onCasualWord");
    const date = document.createElement("td");
    date.textContent = dateText(g.createdAt);
    tr.append(players, result, time, mode, date);
    body.appendChild(tr);
  }
  const pages = Math.max(1, Math.ceil(data.total / PAGE));
  $("pr-page").textContent = t("onPageOf", { page: data.page, pages, total: data.total });
  $("pr-prev").disabled = data.page <= 1;
  $("pr-next").disabled = data.page >= pages;
}

async function loadGames() {
  const q = new URLSearchParams({ page: String(view.page), nb: String(PAGE) });
  for (const [key, id] of [["rated", "f-rated"], ["speed", "f-speed"], ["result", "f-result"]]) {
    if ($(id).value) q.set(key, $(id).value);
  }
  try { view.games = await api("GET", `${path(view.name)}/games?${q}`); } catch (e) { showError(e); return; }
  renderGames();
}

async function loadProfile() {
  try {
    [view.profile, view.history] = await Promise.all([
      api("GET", path(view.name)), api("GET", path(view.name) + "/rating-history"),
    ]);
  } catch (e) {
    // No such player: say so, and show none of a profile's parts (no games to find).
    const missing = e instanceof ApiError && e.status === 404;
    $("profile-view").classList.toggle("missing", missing);
    $("pr-name").textContent = missing ? t("onNoSuchPlayer") : view.name;
    $("pr-record").textContent = t("onNoPlayer", { name: view.name });
    if (missing) document.title = t("onNoSuchPlayer");
    else showError(e);
    return false;
  }
  $("profile-view").classList.remove("missing");
  renderProfile();
  return true;
}

/** @param {string} what follow, unfollow, block or unblock @param {HTMLButtonElement} button */
async function relate(what, button) {
  const r = await act(button, () => api("POST", `/api/rel/${what}/${encodeURIComponent(view.name)}`, {}));
  if (r) await loadProfile();
}

function wireProfile() {
  $("btn-report").addEventListener("click", () => openReport(view.profile.name, null));
  $("btn-follow").addEventListener("click", () => relate(view.profile.following ? "unfollow" : "follow", $("btn-follow")));
  $("btn-block").addEventListener("click", () => relate(view.profile.blocking ? "unblock" : "block", $("btn-block")));
  $("btn-challenge").addEventListener("click", () => { $("pr-challenge").hidden = !$("pr-challenge").hidden; });
  fillDays($("ch-days"));
  $("ch-days").addEventListener("change", () => {
    const days = !!$("ch-days").value;
    $("ch-minutes").disabled = days;
    $("ch-increment").disabled = days;
  });
  casualUnderOtherRules("ch-variant", "ch-rated");
  $("pr-challenge").addEventListener("submit", async (/** @type {Event} */ e) => {
    e.preventDefault();
    const days = $("ch-days").value;
    const body = {
      // Correspondence: lichess's `days` instead of the clock.
      ...(days ? { days: Number(days) } : { clock: { limit: Math.round(Number($("ch-minutes").value) * 60), increment: Number($("ch-increment").value) } }),
      color: $("ch-color").value,
      rated: $("ch-rated").checked,
      variant: $("ch-variant").value,
    };
    const r = await act($("btn-ch-send"), () => api("POST", "/api/challenge/" + encodeURIComponent(view.name), body));
    if (r && r.id) go(r.id);
  });
  for (const id of ["f-rated", "f-speed", "f-result"]) {
    $(id).addEventListener("change", () => { view.page = 1; loadGames(); });
  }
  $("pr-prev").addEventListener("click", () => { view.page = Math.max(1, view.page - 1); loadGames(); });
  $("pr-next").addEventListener("click", () => { view.page += 1; loadGames(); });
}

/** Opens the profile of `name`. @param {string} name */
export async function startProfile(name) {
  view.name = name;
  $("profile-view").hidden = false;
  $("link-lobby").removeAttribute("aria-current");
  wireProfile();
  session.changed = () => { loadProfile(); };
  if (await loadProfile()) await loadGames();
}

/** Draws the profile again (in another language). */
export function redrawProfile() {
  fillDays($("ch-days"));
  if ($("profile-view").classList.contains("missing")) {
    $("pr-name").textContent = document.title = t("onNoSuchPlayer");
    $("pr-record").textContent = t("onNoPlayer", { name: view.name });
  }
  renderProfile();
  renderGames();
}

let leaders = /** @type {Record<string, any[]>} */ ({});

function renderLeaders() {
  document.title = t("onLeaders");
  const box = $("leaders");
  box.innerHTML = "";
  for (const speed of SPEEDS) {
    const section = document.createElement("section");
    section.dataset.testid = "leaders-" + speed;
    const h = document.createElement("h3");
    h.textContent = cap(speedName(speed));
    section.appendChild(h);
    const users = leaders[speed] || [];
    if (!users.length) {
      const p = document.createElement("p");
      p.className = "muted";
      p.textContent = t("onNoLeaders");
      section.appendChild(p);
    }
    const ol = document.createElement("ol");
    for (const u of users) {
      const li = document.createElement("li");
      const a = document.createElement("a");
      a.href = "/@/" + encodeURIComponent(u.username);
      a.textContent = u.username;
      const perf = u.perfs[speed];
      const progress = document.createElement("span");
      progress.className = perf.progress > 0 ? "progress-up" : perf.progress < 0 ? "progress-down" : "";
      progress.textContent = perf.progress ? ` ${perf.progress > 0 ? "▲" : "▼"}${Math.abs(perf.progress)}` : "";
      // A provisional rating (fewer games, still moving fast) is listed after the others, with "?".
      li.append(a, ` ${perf.rating}${perf.prov ? "?" : ""}`, progress);
      if (perf.prov) {
        li.classList.add("provisional");
        li.title = t("onProvisional");
      }
      ol.appendChild(li);
    }
    section.appendChild(ol);
    box.appendChild(section);
  }
}

/** Opens the leaderboards. */
export async function startLeaders() {
  $("leaders-view").hidden = false;
  $("link-lobby").removeAttribute("aria-current");
  $("link-leaders").setAttribute("aria-current", "page");
  try {
    const lists = await Promise.all(SPEEDS.map((s) => api("GET", `/api/player/top/10/${s}?provisional=true`)));
    SPEEDS.forEach((s, i) => { leaders[s] = lists[i].users; });
  } catch (e) { showError(e); }
  renderLeaders();
}

/** Draws the leaderboards again (in another language). */
export function redrawLeaders() { renderLeaders(); }
