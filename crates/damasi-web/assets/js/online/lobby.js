// The lobby at /online: quick pairing pools, posting and taking seeks, a game with a friend,
// the live games and the person's games in progress (from their event stream).
import { $, titled } from "../util.js";
import { api } from "../api.js";
import { t, tn, getLang } from "../i18n.js";
import { act, casualUnderOtherRules, clockText, daysHours, fillDays, go, rulesText, sideWord, speedName, toast } from "./common.js";
import { ensureSession, loadRecent, session } from "./account.js";
import { events, startEvents, stopEvents } from "./events.js";

const lobby = {
  /** @type {string|null} the pool id waited in, e.g. "3+2" */
  poolWaiting: null,
  /** @type {Map<string, string>} games in progress of the person: id -> color */
  myGames: new Map(),
};

async function refreshLobby() {
  let data, live;
  try {
    [data, live] = await Promise.all([api("GET", "/api/lobby"), api("GET", "/api/online/games")]);
  } catch (_) { return; }
  renderPools(data.pools || []);
  renderSeeks(data.seeks || []);
  renderLive(live.games || []);
  refreshWaiting();
}

/** @type {any[]} the person's games waiting for their move (GET /api/account/playing) */
let waiting = [];

/** Asks which of the person's games wait for their move. */
async function refreshWaiting() {
  if (!session.me) { waiting = []; renderWaiting(); return; }
  try {
    const r = await api("GET", "/api/account/playing?nb=50");
    waiting = (r.nowPlaying || []).filter((/** @type {any} */ g) => g.isMyTurn);
  } catch (_) { return; }
  renderWaiting();
}

/** The games waiting for the person's move, the notice over them, and the tab's title. */
function renderWaiting() {
  const ul = $("waiting");
  ul.innerHTML = "";
  $("waiting-box").hidden = waiting.length === 0;
  $("waiting-notice").textContent = waiting.length ? tn("onYourMoveNotice", waiting.length) : "";
  renderMyGames();
  document.title = (waiting.length ? `(${waiting.length}) ` : "") + t("onTitleLobby");
  for (const g of waiting) {
    const li = document.createElement("li");
    li.dataset.testid = "waiting-" + g.gameId;
    const a = document.createElement("a");
    a.href = "/online/" + g.gameId;
    a.textContent = t("onMyGame", { id: g.opponent && g.opponent.username ? g.opponent.username : g.gameId, side: sideWord(g.color) });
    const span = document.createElement("span");
    const ms = (g.secondsLeft || 0) * 1000;
    const left = daysHours(ms) || `${Math.floor(ms / 3600000)}:${String(Math.floor((ms % 3600000) / 60000)).padStart(2, "0")}`;
    span.textContent = t("onTimeLeft", { left }) + (g.daysPerTurn ? " · " + clockText(null, g.daysPerTurn) : "");
    li.append(a, span);
    ul.appendChild(li);
  }
}

/** @param {any[]} pools */
function renderPools(pools) {
  const box = $("pools");
  box.innerHTML = "";
  for (const p of pools) {
    const b = document.createElement("button");
    b.type = "button";
    b.dataset.testid = "pool-" + p.id;
    b.setAttribute("aria-pressed", String(lobby.poolWaiting === p.id));
    b.append(`${p.minutes} + ${p.increment}`);
    const s = document.createElement("small");
    s.textContent = t("onWaiting", { n: p.waiting });
    b.appendChild(s);
    b.addEventListener("click", () => joinPool(p.id, b));
    box.appendChild(b);
  }
  $("pool-wait").hidden = !lobby.poolWaiting;
  if (lobby.poolWaiting) $("pool-wait-text").textContent = t("onPoolWait", { pool: lobby.poolWaiting });
}

/** @param {string} id @param {HTMLButtonElement} button */
async function joinPool(id, button) {
  if (!(await ensureSession())) return;
  startEvents();
  await events.ready;
  const r = await act(button, () => api("POST", "/api/pool/" + encodeURIComponent(id), {}));
  if (!r) return;
  if (r.game) { go(r.game); return; }
  lobby.poolWaiting = id;
  startEvents();
  refreshLobby();
}

/** @param {any[]} seeks */
function renderSeeks(seeks) {
  const body = $("seeks");
  body.innerHTML = "";
  if (!seeks.length) {
    const tr = document.createElement("tr");
    const td = document.createElement("td");
    td.colSpan = 7;
    td.className = "empty";
    td.textContent = t("onNoSeeks");
    tr.appendChild(td);
    body.appendChild(tr);
  }
  for (const s of seeks) {
    const tr = document.createElement("tr");
    tr.dataset.testid = "seek-" + s.id;
    const cells = [s.username, s.rating == null ? "–" : String(s.rating), clockText(s.clock) + " " + speedName(s.speed),
      s.rated ? t("onRatedWord") + (s.ratingRange ? " " + s.ratingRange : "") : t("onCasualWord"), rulesText(s.variant), sideWord(s.color)];
    for (const c of cells) { const td = document.createElement("td"); td.textContent = c; tr.appendChild(td); }
    // The seeker's name opens their page.
    const link = document.createElement("a");
    link.href = "/@/" + encodeURIComponent(s.username);
    link.textContent = s.username;
    tr.cells[0].replaceChildren(link);
    const td = document.createElement("td");
    const b = document.createElement("button");
    b.type = "button";
    if (session.me && s.username === session.me.name) {
      b.textContent = t("cancel");
      b.setAttribute("aria-label", t("onCancelSeek"));
      b.addEventListener("click", async () => {
        const r = await act(b, () => api("DELETE", "/api/lobby/seeks/" + s.id));
        if (r) refreshLobby();
      });
    } else {
      b.textContent = t("onTake");
      b.className = "primary";
      b.dataset.testid = "take-" + s.id;
      b.setAttribute("aria-label", t("onPlayAria", { name: s.username, clock: clockText(s.clock) }));
      b.addEventListener("click", async () => {
        if (!(await ensureSession())) return;
        const r = await act(b, () => api("POST", `/api/lobby/seeks/${s.id}/accept`, {}));
        if (r && r.game) go(r.game);
        else refreshLobby();
      });
    }
    td.appendChild(b);
    tr.appendChild(td);
    body.appendChild(tr);
  }
}

/** A seat as "name (rating)". @param {any} p */
function seatName(p) {
  if (!p) return t("onFreeSeat");
  return titled(p.name, p.title) + (p.rating != null ? ` (${p.rating}${p.provisional ? "?" : ""})` : "");
}

/** @param {any[]} games */
function renderLive(games) {
  const ul = $("live");
  ul.innerHTML = "";
  if (!games.length) {
    const li = document.createElement("li");
    li.className = "empty";
    li.textContent = t("onNobody");
    ul.appendChild(li);
  }
  for (const g of games) {
    const li = document.createElement("li");
    li.dataset.testid = "live-" + g.id;
    const span = document.createElement("span");
    span.textContent = `${seatName(g.white)} – ${seatName(g.black)} · ${clockText(g.clock, g.daysPerTurn)} ${t(g.rated ? "onRatedWord" : "onCasualWord")}`;
    const a = document.createElement("a");
    a.className = "button";
    a.href = "/online/" + g.id;
    a.textContent = t("onWatch");
    li.append(span, a);
    ul.appendChild(li);
  }
}

function renderMyGames() {
  const ul = $("my-games");
  ul.innerHTML = "";
  // A game waiting for the person's move is listed there (with the opponent), not twice.
  const shown = [...lobby.myGames].filter(([id]) => !waiting.some((g) => g.gameId === id));
  $("my-games-box").hidden = shown.length === 0;
  for (const [id, color] of shown) {
    const li = document.createElement("li");
    const a = document.createElement("a");
    a.href = "/online/" + id;
    a.textContent = t("onMyGame", { id, side: sideWord(color) });
    li.appendChild(a);
    ul.appendChild(li);
  }
}

// A game that starts while the lobby is open is opened; games already going on are listed.
/** @param {any} ev */
function onUserEvent(ev) {
  if (ev.type === "gameStart" && ev.game) {
    const known = lobby.myGames.has(ev.game.id);
    lobby.myGames.set(ev.game.id, ev.game.color);
    renderMyGames();
    // A game that starts now (a seek taken, a pool pairing, a friend at the link) opens.
    if (!known && events.burstDone) go(ev.game.id);
  } else if (ev.type === "gameFinish" && ev.game) {
    lobby.myGames.delete(ev.game.id);
    renderMyGames();
  }
}

function newGameBody() {
  const days = $("new-days").value;
  return {
    // Correspondence: days a move instead of the clock.
    ...(days ? { days: Number(days) } : { minutes: Number($("new-minutes").value), increment: Number($("new-increment").value) }),
    color: $("new-color").value,
    rated: $("new-rated").checked,
    chat: $("new-chat").checked,
    ratingRange: $("new-range").value.trim() || undefined,
    variant: $("new-variant").value,
  };
}

function wireLobby() {
  fillDays($("new-days"));
  $("new-days").addEventListener("change", () => {
    const days = !!$("new-days").value;
    $("new-minutes").disabled = days;
    $("new-increment").disabled = days;
  });
  casualUnderOtherRules("new-variant", "new-rated");
  $("new-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    if (!(await ensureSession())) return;
    startEvents();
    await events.ready;
    const r = await act($("btn-seek"), () => api("POST", "/api/lobby/seeks", newGameBody()));
    if (!r) return;
    startEvents();
    toast(t("onSeekPosted"));
    refreshLobby();
  });
  $("btn-friend").addEventListener("click", async () => {
    if (!(await ensureSession())) return;
    const body = newGameBody();
    delete body.ratingRange;
    const r = await act($("btn-friend"), () => api("POST", "/api/online/games", body));
    if (r) go(r.id);
  });
  $("btn-pool-cancel").addEventListener("click", async () => {
    const r = await act($("btn-pool-cancel"), () => api("DELETE", "/api/pool"));
    if (!r) return;
    lobby.poolWaiting = null;
    refreshLobby();
  });
}

/** @type {any[]} the events being played or taking entries (GET /api/swiss) */
let soon = [];

/** Asks for the events being played or taking entries, for the lobby's list. */
async function refreshEvents() {
  try {
    const { tournaments } = await api("GET", "/api/swiss");
    soon = (tournaments || []).filter((/** @type {any} */ e) => e.status === "started" || e.status === "created");
  } catch (_) {
    soon = [];   // e.g. a process of a cluster that does not direct the tournaments
  }
  // Being played first, then by start time (those with none last), at most five.
  const at = (/** @type {any} */ e) => (e.status === "started" ? 0 : e.startsAt || Number.MAX_SAFE_INTEGER);
  soon.sort((a, b) => at(a) - at(b));
  soon = soon.slice(0, 5);
  renderEvents();
}

/** The events starting soon or being played, each a link to its page. */
function renderEvents() {
  $("events-box").hidden = soon.length === 0;
  const ul = $("events-soon");
  ul.innerHTML = "";
  for (const e of soon) {
    const li = document.createElement("li");
    li.dataset.testid = "event-" + e.id;
    const a = document.createElement("a");
    a.href = (e.kind === "arena" ? "/tournament/" : "/swiss/") + e.id;
    a.textContent = e.name;
    const span = document.createElement("span");
    span.textContent = e.status === "started" ? t("onEventPlaying")
      : e.startsAt ? t("onEventStarts", { time: new Date(e.startsAt).toLocaleString(getLang(), { weekday: "short", hour: "2-digit", minute: "2-digit" }) })
        : t("onEventOpen");
    li.append(a, span);
    ul.appendChild(li);
  }
}

/** Draws the lobby again (in another language). */
export function redrawLobby() {
  document.title = t("onTitleLobby");
  fillDays($("new-days"));
  renderWaiting();
  renderMyGames();
  renderEvents();
  refreshLobby();
}

export function startLobby() {
  $("lobby").hidden = false;
  document.title = t("onTitleLobby");
  wireLobby();
  events.onEvent = onUserEvent;
  session.drawn = () => { loadRecent(); };
  session.changed = () => {
    stopEvents();
    lobby.myGames.clear();
    lobby.poolWaiting = null;
    renderMyGames();
    if (session.me) startEvents();
    refreshLobby();
  };
  if (session.me) startEvents();
  refreshLobby();
  loadRecent();
  setInterval(() => { if (!document.hidden) refreshLobby(); }, 3000);
  refreshEvents();
  setInterval(() => { if (!document.hidden) refreshEvents(); }, 30000);
  // "New opponent" after a game comes here with its pool (`?pool=5+3`): join it at once.
  const pool = new URLSearchParams(location.search).get("pool");
  if (pool) {
    history.replaceState(null, "", location.pathname);
    const b = document.querySelector(`[data-testid="pool-${CSS.escape(pool)}"]`);
    joinPool(pool, b instanceof HTMLButtonElement ? b : $("btn-seek"));
  }
}
