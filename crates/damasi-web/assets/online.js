// The online page: the lobby at /online, one game at /online/{id}. Like the main page it holds
// no rules and decides nothing: the server keeps the game and its clocks, says which moves are
// legal (GET /api/moves) and sends every change over the game's WebSocket. The page shows the
// last state the server sent, counts the clocks down between two states, and sends what the
// player wants to do.
import { FILES, $, sleep, other } from "./js/util.js";
import { toast as showToast, announce } from "./js/i18n.js";
import { parseFen, squareCoords, squareAt as squareAtOf } from "./js/position.js";
import { drawShapes, enableUserShapes } from "./js/board/shapes.js";

const SIDES = ["white", "black"];
const cap = (s) => (s ? s[0].toUpperCase() + s.slice(1) : s);

// ---------------------------------------------------------------------------------------------
// Messages

// The main page's toast, shown a little longer here.
function toast(text, ms = 4500) { showToast(text, ms); }

// ---------------------------------------------------------------------------------------------
// Server

// A refusal the server answered with: its status, code and message (the `error` field).
class ApiError extends Error {
  constructor(status, body) {
    body = body && typeof body === "object" ? body : {};
    super(typeof body.error === "string" && body.error ? body.error : "the server answered HTTP " + status);
    this.status = status;
    this.code = typeof body.code === "string" ? body.code : "";
  }
}

// No answer at all: the server is down or the network is gone.
class NetworkError extends Error {}

async function api(method, path, body) {
  const opts = { method, headers: {} };
  if (body !== undefined) {
    opts.headers["content-type"] = "application/json";
    opts.body = JSON.stringify(body);
  }
  let res, text;
  try {
    res = await fetch(path, opts);
    text = await res.text();
  } catch (e) {
    throw new NetworkError(e.message);
  }
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch (_) { data = { error: text }; }
  if (!res.ok) throw new ApiError(res.status, data);
  return data;
}

function errorText(e) {
  if (e instanceof NetworkError) return "The server cannot be reached: check the connection and try again.";
  return cap(String((e && e.message) || e));
}

function showError(e) { toast(errorText(e)); }

// Runs an action of a button: the button is disabled meanwhile, and a refusal is shown.
async function act(button, fn) {
  if (button) button.disabled = true;
  try { return await fn(); } catch (e) { showError(e); return undefined; } finally { if (button) button.disabled = false; }
}

async function copyField(input) {
  input.select();
  try { await navigator.clipboard.writeText(input.value); toast("Copied", 1500); } catch (_) {
    try { document.execCommand("copy"); toast("Copied", 1500); } catch (_) { toast("Select the text and copy it"); }
  }
}

// ---------------------------------------------------------------------------------------------
// Sound: a short beep on every move (WebAudio, no files). Browsers start the audio only after
// the person has touched the page, so the first moves of a page nobody touched are silent.

let audio = null;
const soundOn = () => localStorage.getItem("damasi.online.sound") !== "0";
function beep(capture) {
  if (!soundOn()) return;
  try {
    audio = audio || new (window.AudioContext || window.webkitAudioContext)();
    if (audio.state === "suspended") audio.resume().catch(() => {});
    const t0 = audio.currentTime;
    const osc = audio.createOscillator();
    const gain = audio.createGain();
    osc.type = "sine";
    osc.frequency.setValueAtTime(capture ? 520 : 740, t0);
    gain.gain.setValueAtTime(0.07, t0);
    gain.gain.exponentialRampToValueAtTime(0.0001, t0 + 0.12);
    osc.connect(gain).connect(audio.destination);
    osc.start(t0);
    osc.stop(t0 + 0.13);
  } catch (_) { /* no audio here */ }
}
document.addEventListener("pointerdown", () => { if (audio && audio.state === "suspended") audio.resume().catch(() => {}); });

// ---------------------------------------------------------------------------------------------
// Account

let me = null; // {id, name, guest, perfs} or null

async function loadAccount() {
  try {
    me = await api("GET", "/api/account");
  } catch (e) {
    if (e instanceof ApiError && e.status === 401) me = null;
    else { showError(e); return; }
  }
  renderAccount();
}

function ratingText(perf) {
  return perf ? String(perf.rating) + (perf.provisional ? "?" : "") : "";
}

function renderAccount() {
  $("acct-out").hidden = !!me;
  $("acct-in").hidden = !me;
  $("header-who").textContent = me ? me.name + (me.guest ? " (guest)" : "") : "";
  if (!me) { $("token-box").hidden = true; return; }
  $("acct-me").textContent = me.name;
  $("acct-guest").hidden = !me.guest;
  $("btn-token").hidden = me.guest;
  const list = $("acct-ratings");
  list.innerHTML = "";
  const perfs = Object.entries(me.perfs || {});
  if (!perfs.length) {
    const li = document.createElement("li");
    li.className = "muted";
    li.textContent = me.guest ? "Guests play casual games only." : "No rated games yet (everyone starts at 1500?).";
    list.appendChild(li);
  }
  for (const [speed, p] of perfs) {
    const li = document.createElement("li");
    li.dataset.testid = "rating-" + speed;
    li.dataset.rating = String(p.rating);
    li.title = `rating deviation ${p.rd}; ${p.provisional ? "provisional (marked ?)" : "established"}`;
    li.append(cap(speed) + " ");
    const strong = document.createElement("strong");
    strong.textContent = ratingText(p);
    li.appendChild(strong);
    li.append(` (${p.games} game${p.games === 1 ? "" : "s"})`);
    list.appendChild(li);
  }
  const hide = $("chat-hide");
  if (hide) { hide.checked = chatHidden(); renderChatHidden(); }
  if (!$("lobby").hidden) loadRecent();
}

// The person's last games (GET /api/user/{name}), on the lobby.
async function loadRecent() {
  if (!me) return;
  let profile;
  try { profile = await api("GET", "/api/user/" + encodeURIComponent(me.name)); } catch (_) { return; }
  const ul = $("recent");
  ul.innerHTML = "";
  const games = (profile.games || []).slice(0, 10);
  $("recent-box").hidden = games.length === 0;
  for (const g of games) {
    const li = document.createElement("li");
    const a = document.createElement("a");
    a.href = "/online/" + g.id;
    const who = g.outcome ? g.outcome.split(":")[0] : "";
    const result = g.status === "open" ? "open" : g.status === "playing" ? "playing" :
      who === "white" ? "1–0" : who === "black" ? "0–1" : who === "draw" ? "½–½" : "aborted";
    a.textContent = `${g.white || "?"} – ${g.black || "?"}`;
    const span = document.createElement("span");
    const mine = g.white === me.name ? "white" : "black";
    const diff = g.ratingDiff ? g.ratingDiff[mine] : null;
    span.textContent = `${result} · ${clockText(g.clock)}${g.rated ? " rated" : ""}${diff == null ? "" : ` (${diff >= 0 ? "+" : "−"}${Math.abs(diff)})`}`;
    li.append(a, span);
    ul.appendChild(li);
  }
}

function credentials() {
  const name = $("acct-name").value.trim();
  const password = $("acct-password").value;
  if (!name || !password) { toast("Give a name and a password."); return null; }
  return { name, password };
}

async function signIn(path, body, button) {
  const r = await act(button, () => api("POST", path, body));
  if (!r) return;
  me = r;
  $("acct-password").value = "";
  renderAccount();
  accountChanged();
}

// A session for an action that needs one: a guest session when nobody is logged in.
async function ensureSession() {
  if (me) return true;
  try { me = await api("POST", "/api/account/guest", {}); } catch (e) { showError(e); return false; }
  renderAccount();
  accountChanged();
  return true;
}

function wireAccount() {
  $("acct-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const c = credentials();
    if (c) signIn("/api/account/login", c, $("btn-login"));
  });
  $("btn-signup").addEventListener("click", () => {
    const c = credentials();
    if (c) signIn("/api/account/signup", c, $("btn-signup"));
  });
  $("btn-guest").addEventListener("click", () => signIn("/api/account/guest", {}, $("btn-guest")));
  $("btn-logout").addEventListener("click", async () => {
    const r = await act($("btn-logout"), () => api("POST", "/api/account/logout", {}));
    if (!r) return;
    me = null;
    renderAccount();
    accountChanged();
  });
  $("btn-token").addEventListener("click", async () => {
    const r = await act($("btn-token"), () => api("POST", "/api/account/token", {}));
    if (!r) return;
    $("token-text").value = r.token;
    $("token-box").hidden = false;
  });
  $("btn-token-copy").addEventListener("click", () => copyField($("token-text")));
}

// What a view does when the person logs in or out.
let accountChanged = () => {};

// ---------------------------------------------------------------------------------------------
// Lobby

const lobby = {
  poolWaiting: null,     // the pool id waited in, e.g. "3+2"
  myGames: new Map(),    // games in progress of the person: id -> color
  events: null,          // AbortController of the event stream
  ready: Promise.resolve(), // settles once the stream has announced the games already going on
};

function clockText(clock) {
  const m = clock.initial / 60000;
  return `${Number.isInteger(m) ? m : m.toFixed(1)}+${Math.round(clock.increment / 1000)}`;
}

let leaving = false;
function go(id) {
  if (leaving) return;
  leaving = true;
  location.assign("/online/" + encodeURIComponent(id));
}


async function refreshLobby() {
  let data, live;
  try {
    [data, live] = await Promise.all([api("GET", "/api/lobby"), api("GET", "/api/online/games")]);
  } catch (_) { return; }
  renderPools(data.pools || []);
  renderSeeks(data.seeks || []);
  renderLive(live.games || []);
}

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
    s.textContent = `${p.waiting} waiting`;
    b.appendChild(s);
    b.addEventListener("click", () => joinPool(p.id, b));
    box.appendChild(b);
  }
  $("pool-wait").hidden = !lobby.poolWaiting;
  if (lobby.poolWaiting) $("pool-wait-text").textContent = `Waiting for an opponent in the ${lobby.poolWaiting} pool…`;
}

async function joinPool(id, button) {
  if (!(await ensureSession())) return;
  startEvents();
  await lobby.ready;
  const r = await act(button, () => api("POST", "/api/pool/" + encodeURIComponent(id), {}));
  if (!r) return;
  if (r.game) { go(r.game); return; }
  lobby.poolWaiting = id;
  startEvents();
  refreshLobby();
}

function renderSeeks(seeks) {
  const body = $("seeks");
  body.innerHTML = "";
  if (!seeks.length) {
    const tr = document.createElement("tr");
    const td = document.createElement("td");
    td.colSpan = 6;
    td.className = "empty";
    td.textContent = "No open seeks: post one, or join a pool.";
    tr.appendChild(td);
    body.appendChild(tr);
  }
  for (const s of seeks) {
    const tr = document.createElement("tr");
    tr.dataset.testid = "seek-" + s.id;
    const cells = [s.username, s.rating == null ? "–" : String(s.rating), clockText(s.clock) + " " + s.speed,
      s.rated ? "rated" + (s.ratingRange ? " " + s.ratingRange : "") : "casual", s.color];
    for (const c of cells) { const td = document.createElement("td"); td.textContent = c; tr.appendChild(td); }
    const td = document.createElement("td");
    const b = document.createElement("button");
    b.type = "button";
    if (me && s.username === me.name) {
      b.textContent = "Cancel";
      b.setAttribute("aria-label", "Cancel your seek");
      b.addEventListener("click", async () => {
        const r = await act(b, () => api("DELETE", "/api/lobby/seeks/" + s.id));
        if (r) refreshLobby();
      });
    } else {
      b.textContent = "Take";
      b.className = "primary";
      b.dataset.testid = "take-" + s.id;
      b.setAttribute("aria-label", `Play ${s.username}, ${clockText(s.clock)}`);
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

function seatName(p) {
  if (!p) return "(free seat)";
  return p.name + (p.rating != null ? ` (${p.rating}${p.provisional ? "?" : ""})` : "");
}

function renderLive(games) {
  const ul = $("live");
  ul.innerHTML = "";
  if (!games.length) {
    const li = document.createElement("li");
    li.className = "empty";
    li.textContent = "Nobody is playing right now.";
    ul.appendChild(li);
  }
  for (const g of games) {
    const li = document.createElement("li");
    li.dataset.testid = "live-" + g.id;
    const span = document.createElement("span");
    span.textContent = `${seatName(g.white)} – ${seatName(g.black)} · ${clockText(g.clock)} ${g.rated ? "rated" : "casual"}`;
    const a = document.createElement("a");
    a.className = "button";
    a.href = "/online/" + g.id;
    a.textContent = "Watch";
    li.append(span, a);
    ul.appendChild(li);
  }
}

function renderMyGames() {
  const ul = $("my-games");
  ul.innerHTML = "";
  $("my-games-box").hidden = lobby.myGames.size === 0;
  for (const [id, color] of lobby.myGames) {
    const li = document.createElement("li");
    const a = document.createElement("a");
    a.href = "/online/" + id;
    a.textContent = `Game ${id} (you play ${color})`;
    li.appendChild(a);
    ul.appendChild(li);
  }
}

// The person's event stream (NDJSON): a game that starts while the lobby is open is opened;
// games already going on are listed.
function startEvents() {
  if (!me || lobby.events) return;
  const ctl = new AbortController();
  lobby.events = ctl;
  // The stream first announces the games already going on: a game that starts for a seek or
  // a pool is told apart from those by coming after them.
  let settle;
  lobby.burstDone = false;
  lobby.ready = new Promise((r) => { settle = r; }).then(() => {
    lobby.burstDone = true;
    document.body.dataset.events = "ready";
  });
  setTimeout(() => settle(), 3000);
  (async () => {
    while (!ctl.signal.aborted) {
      try {
        const res = await fetch("/api/stream/event", { signal: ctl.signal });
        if (res.status === 401) break;
        setTimeout(() => settle(), 300);
        const reader = res.body.getReader();
        const dec = new TextDecoder();
        let buf = "";
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buf += dec.decode(value, { stream: true });
          let i;
          while ((i = buf.indexOf("\n")) >= 0) {
            const line = buf.slice(0, i).trim();
            buf = buf.slice(i + 1);
            if (line) { try { onUserEvent(JSON.parse(line)); } catch (_) { /* not JSON */ } }
          }
        }
      } catch (_) {
        if (ctl.signal.aborted) return;
      }
      await sleep(2000);
    }
    if (lobby.events === ctl) lobby.events = null;
  })();
}

function stopEvents() {
  if (lobby.events) lobby.events.abort();
  lobby.events = null;
}

function onUserEvent(ev) {
  if (ev.type === "gameStart" && ev.game) {
    const known = lobby.myGames.has(ev.game.id);
    lobby.myGames.set(ev.game.id, ev.game.color);
    renderMyGames();
    // A game that starts now (a seek taken, a pool pairing, a friend at the link) opens.
    if (!known && lobby.burstDone) go(ev.game.id);
  } else if (ev.type === "gameFinish" && ev.game) {
    lobby.myGames.delete(ev.game.id);
    renderMyGames();
  }
}

function newGameBody() {
  return {
    minutes: Number($("new-minutes").value),
    increment: Number($("new-increment").value),
    color: $("new-color").value,
    rated: $("new-rated").checked,
    chat: $("new-chat").checked,
    ratingRange: $("new-range").value.trim() || undefined,
  };
}

function wireLobby() {
  $("new-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    if (!(await ensureSession())) return;
    startEvents();
    await lobby.ready;
    const r = await act($("btn-seek"), () => api("POST", "/api/lobby/seeks", newGameBody()));
    if (!r) return;
    startEvents();
    toast("Your seek is in the lobby: the game opens when someone takes it.");
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

function startLobby() {
  $("lobby").hidden = false;
  document.title = "damasi online: lobby";
  wireLobby();
  accountChanged = () => {
    stopEvents();
    lobby.myGames.clear();
    lobby.poolWaiting = null;
    renderMyGames();
    if (me) startEvents();
    refreshLobby();
  };
  if (me) startEvents();
  refreshLobby();
  loadRecent();
  setInterval(() => { if (!document.hidden) refreshLobby(); }, 3000);
}

// ---------------------------------------------------------------------------------------------
// Positions (display only: a FEN lists where the pieces stand)

// The squares of a move in landing notation, its start first: `d4xd6xd8=K` -> d4 d6 d8.
function landingSquares(text) {
  return (text || "").match(/[a-h][1-8]/g) || [];
}

// ---------------------------------------------------------------------------------------------
// The game

const view = {
  id: null,
  full: null,        // the last gameFull (players, control, chat)
  state: null,       // the last gameState
  stateAt: 0,        // performance.now() when `state` arrived: the clocks count on from there
  you: null,         // "white", "black" or null (spectator)
  flip: false,       // the person turned the board round
  legal: [],         // legal moves of the shown position when it is the person's turn
  legalFen: "",
  sel: null,         // selected square
  path: [],          // landing squares chosen so far in a capture
  cursor: "d4",      // keyboard cursor
  shown: null,       // the position on the board: {side, pieces}
  pending: null,     // a move sent and not yet confirmed
  claimAt: null,     // performance.now() from which a claim is allowed (opponent gone)
  ws: null,
  wsOpen: false,
  retry: 0,
  retryTimer: null,
  connects: 0,       // sockets that got the server's first message (shown in data-connects)
  chat: [],
  resignAsk: false,
  followed: false,   // went on to the rematch already
};

const running = (s) => !!s && s.status === "started";
const over = (s) => !!s && s.status !== "created" && s.status !== "started";
const plies = (s) => (s && s.moves ? s.moves.split(" ").filter(Boolean) : []);

function seatedAs(full) {
  if (!me || !full) return null;
  for (const side of SIDES) if (full[side] && full[side].id === me.id) return side;
  return null;
}

function flipped() { return (view.you === "black") !== view.flip; }

const coords = (sq) => squareCoords(sq, flipped());
const squareAt = (col, row) => squareAtOf(col, row, flipped());

function buildBoard() {
  const el = $("board");
  el.innerHTML = "";
  for (let row = 0; row < 8; row++) {
    for (let col = 0; col < 8; col++) {
      const sq = squareAt(col, row);
      const d = document.createElement("div");
      const f = FILES.indexOf(sq[0]), r = Number(sq[1]) - 1;
      d.className = "sq" + ((f + r) % 2 === 0 ? " dk" : "");
      d.dataset.sq = sq;
      if (row === 7) { const c = document.createElement("span"); c.className = "coord file"; c.textContent = sq[0]; d.appendChild(c); }
      if (col === 0) { const c = document.createElement("span"); c.className = "coord rank"; c.textContent = sq[1]; d.appendChild(c); }
      el.appendChild(d);
    }
  }
  const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  svg.setAttribute("class", "paths");
  svg.setAttribute("viewBox", "0 0 8 8");
  svg.id = "paths";
  el.appendChild(svg);
  view.builtFlipped = flipped();
  // The player's arrows and circles (board/shapes.js) turn with the board.
  el.dataset.flipped = String(view.builtFlipped);
  drawShapes(el);
}

function myTurn() {
  return running(view.state) && !!view.you && view.state.turn === view.you && !view.pending;
}

function candidates() {
  if (!view.sel) return [];
  return view.legal.filter((m) => m.from === view.sel && view.path.every((s, i) => m.route[i] === s));
}

function movable() { return myTurn() ? new Set(view.legal.map((m) => m.from)) : new Set(); }

function polyline(svg, squares, color, width) {
  if (squares.length < 2) return;
  const pl = document.createElementNS("http://www.w3.org/2000/svg", "polyline");
  pl.setAttribute("points", squares.map((s) => { const c = coords(s); return `${c.col + 0.5},${c.row + 0.5}`; }).join(" "));
  pl.setAttribute("fill", "none");
  pl.setAttribute("stroke", color);
  pl.setAttribute("stroke-width", String(width));
  pl.setAttribute("stroke-linecap", "round");
  pl.setAttribute("stroke-linejoin", "round");
  svg.appendChild(pl);
}

function renderBoard() {
  if (view.builtFlipped !== flipped()) buildBoard();
  const el = $("board");
  for (const p of el.querySelectorAll(".piece")) p.remove();
  const pos = view.shown || { pieces: {} };
  const mov = movable();
  const cands = candidates();
  const jumped = new Set(cands.length ? cands[0].captures.slice(0, view.path.length) : []);
  const at = view.sel && view.path.length ? view.path[view.path.length - 1] : null;
  for (const [sq, p] of Object.entries(pos.pieces)) {
    const d = document.createElement("div");
    d.className = `piece ${p.c}${p.k ? " k" : ""}${mov.has(sq) ? " mine movable" : ""}${jumped.has(sq) ? " captured" : ""}`;
    d.dataset.sq = sq;
    const { col, row } = coords(sq === view.sel && at ? at : sq);
    d.style.left = col * 12.5 + "%";
    d.style.top = row * 12.5 + "%";
    el.appendChild(d);
  }
  // The last move, its whole route; the selection and where it can go next.
  const last = view.pending ? [view.pending.from, ...view.pending.route] : landingSquares(plies(view.state).slice(-1)[0]);
  const next = new Set(), finals = new Set();
  for (const m of cands) {
    if (m.route.length > view.path.length) {
      next.add(m.route[view.path.length]);
      if (m.route.length === view.path.length + 1) finals.add(m.route[view.path.length]);
    }
  }
  const kbd = el.matches(":focus-visible");
  for (const d of el.querySelectorAll(".sq")) {
    const sq = d.dataset.sq;
    d.classList.toggle("last", last.includes(sq) && sq !== view.sel);
    d.classList.toggle("sel", sq === view.sel);
    d.classList.toggle("target", next.has(sq));
    d.classList.toggle("final", finals.has(sq));
    d.classList.toggle("onpath", view.path.includes(sq));
    d.classList.toggle("kbd", kbd && sq === view.cursor);
  }
  const svg = $("paths");
  svg.innerHTML = "";
  polyline(svg, last, "rgba(60,120,30,.6)", 0.1);
  for (const m of cands) if (m.route.length > 1) polyline(svg, [m.from, ...m.route], "rgba(40,90,40,.5)", 0.08);
  $("board").dataset.lastMove = last.join("-");
}

function selectSquare(sq) { view.sel = sq; view.path = []; renderBoard(); }
function clearSelection() { view.sel = null; view.path = []; renderBoard(); setStatus(statusText()); }

// One click (or Enter) on a square.
function activate(sq) {
  if (!myTurn()) return;
  const mov = movable();
  if (view.sel) {
    const cands = candidates();
    const hits = cands.filter((m) => m.route[view.path.length] === sq);
    if (hits.length) {
      view.path.push(sq);
      const done = hits.filter((m) => m.route.length === view.path.length);
      if (done.length && done.length === hits.length) { sendMove(done[0]); return; }
      renderBoard();
      setStatus("Continue the capture: pick the next landing square.");
      return;
    }
    const byEnd = cands.filter((m) => m.to === sq);
    if (byEnd.length === 1) { sendMove(byEnd[0]); return; }
    if (mov.has(sq) && view.path.length === 0 && sq !== view.sel) { selectSquare(sq); return; }
    clearSelection();
    return;
  }
  if (mov.has(sq)) { selectSquare(sq); return; }
  const p = view.shown && view.shown.pieces[sq];
  if (p && (p.c === "w") === (view.you === "white")) {
    const forced = view.legal.length && view.legal.every((m) => m.captures.length > 0);
    toast(forced ? "A capture is forced: pick a piece that captures." : "That piece has no legal move.", 2500);
  }
}

function boardKey(e) {
  const c = coords(view.cursor);
  const steps = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
  if (steps[e.key]) {
    const [dc, dr] = steps[e.key];
    view.cursor = squareAt(Math.min(7, Math.max(0, c.col + dc)), Math.min(7, Math.max(0, c.row + dr)));
    const p = view.shown && view.shown.pieces[view.cursor];
    announce(view.cursor + (p ? `, ${p.c === "w" ? "white" : "black"} ${p.k ? "king" : "man"}` : ""));
    renderBoard();
    e.preventDefault();
  } else if (e.key === "Enter" || e.key === " ") {
    activate(view.cursor);
    e.preventDefault();
  } else if (e.key === "Escape") {
    clearSelection();
  }
}

// Plays `m` on the board at once and sends it; the server's answer then replaces the board.
function sendMove(m) {
  const pieces = { ...view.shown.pieces };
  const piece = pieces[m.from];
  delete pieces[m.from];
  for (const c of m.captures) delete pieces[c];
  if (piece) pieces[m.to] = { c: piece.c, k: piece.k || m.promotion };
  view.shown = { side: view.shown.side === "W" ? "B" : "W", pieces };
  view.pending = m;
  view.sel = null;
  view.path = [];
  beep(m.captures.length > 0);
  renderGame();
  send({ t: "move", move: m.landing }, () => api("POST", `/api/online/games/${view.id}/move`, { move: m.landing }));
}

// Sends a message over the socket, or with `fallback` (an HTTP request) when it is down.
function send(msg, fallback) {
  if (view.ws && view.wsOpen) {
    view.ws.send(JSON.stringify(msg));
    return;
  }
  fallback().then((r) => { if (r && r.type === "gameState") applyState(r); }).catch((e) => { refused(e); });
}

function refused(e) {
  showError(e);
  // Whatever the page showed ahead of the server goes back to the server's state.
  view.pending = null;
  view.sel = null;
  view.path = [];
  if (view.state) view.shown = parseFen(view.state.fen);
  renderGame();
}

async function loadLegal() {
  const s = view.state;
  if (!s || !running(s) || !view.you || s.turn !== view.you) { view.legal = []; view.legalFen = ""; return; }
  if (view.legalFen === s.fen) return;
  const fen = s.fen;
  try {
    const r = await api("GET", "/api/moves?fen=" + encodeURIComponent(fen));
    if (view.state && view.state.fen === fen) {
      view.legal = r.moves || [];
      view.legalFen = fen;
      renderBoard();
      setStatus(statusText());
    }
  } catch (e) {
    showError(e);
  }
}

function applyFull(full) {
  const { state, ...rest } = full;
  const seatsBefore = view.full ? SIDES.map((s) => view.full[s] && view.full[s].id).join() : "";
  view.full = rest;
  if (Array.isArray(full.chat)) view.chat = full.chat.slice();
  view.you = seatedAs(view.full);
  const seatsNow = SIDES.map((s) => view.full[s] && view.full[s].id).join();
  if (seatsBefore && seatsBefore !== seatsNow) announce("Both seats are taken: the game starts.");
  renderChat();
  applyState(state, true);
}

function applyState(s, fromFull = false) {
  const prev = view.state;
  const before = plies(prev).length;
  view.state = s;
  view.stateAt = performance.now();
  const now = plies(s);
  const confirmed = view.pending && now.length > before;
  // A full state (after a reconnection) is the truth: a move lost on the way is dropped.
  if (fromFull || now.length !== before || !view.pending || confirmed || over(s)) {
    view.pending = null;
    view.shown = parseFen(s.fen);
    if (now.length !== before || fromFull) { view.sel = null; view.path = []; }
  }
  if (prev && now.length > before && !confirmed) {
    const last = now[now.length - 1];
    beep(last.includes("x"));
    announce(`${cap(now.length % 2 === 1 ? "white" : "black")} plays ${last}`);
  }
  if (prev && now.length < before) announce("A move was taken back.");
  if (!s.gone || !view.you || !s.gone[other(view.you)]) view.claimAt = null;
  if (over(s) && (!prev || !over(prev))) {
    view.resignAsk = false;
    if (prev) announce(s.description || "The game is over.");
    if (view.full && view.full.rated) loadAccount();
  }
  if (s.rematch && view.you && !view.followed && prev && !prev.rematch) {
    view.followed = true;
    setTimeout(() => go(s.rematch), 600);
  }
  renderGame();
  loadLegal();
}

function onSocketMessage(msg) {
  switch (msg.type) {
    case "gameFull":
      applyFull(msg);
      break;
    case "gameState":
      applyState(msg);
      break;
    case "chatLine":
      view.chat.push({ username: msg.username, text: msg.text });
      renderChat();
      break;
    case "opponentGone":
      if (view.you && msg.side === other(view.you)) {
        view.claimAt = msg.gone ? performance.now() + (msg.claimWinInSeconds || 0) * 1000 : null;
        renderActions();
      }
      break;
    case "error":
      refused(new ApiError(400, msg));
      break;
    default:
      break;
  }
}

function socketUrl() {
  return (location.protocol === "https:" ? "wss://" : "ws://") + location.host + `/api/online/games/${encodeURIComponent(view.id)}/socket`;
}

function setConn(text) {
  $("conn").hidden = !text;
  $("conn").textContent = text || "";
}

// Opens the game's socket; a dropped one is opened again (sooner when the network comes back),
// and the server's first message (gameFull) brings the page up to date.
function connect() {
  clearTimeout(view.retryTimer);
  if (view.ws) {
    const old = view.ws;
    view.ws = null;
    old.onclose = null;
    old.onmessage = null;
    try { old.close(); } catch (_) { /* closed */ }
  }
  view.wsOpen = false;
  let ws;
  try { ws = new WebSocket(socketUrl()); } catch (_) { scheduleReconnect(); return; }
  view.ws = ws;
  ws.onopen = () => {
    if (view.ws !== ws) return;
    view.wsOpen = true;
  };
  ws.onmessage = (e) => {
    if (view.ws !== ws) return;
    let msg;
    try { msg = JSON.parse(e.data); } catch (_) { return; }
    if (msg.type === "gameFull") {
      // The server's first message: the connection works.
      view.retry = 0;
      view.connects += 1;
      document.body.dataset.socket = "open";
      document.body.dataset.connects = String(view.connects);
      setConn("");
    }
    onSocketMessage(msg);
  };
  ws.onclose = () => {
    if (view.ws !== ws) return;
    view.ws = null;
    view.wsOpen = false;
    document.body.dataset.socket = "closed";
    scheduleReconnect();
  };
}

function scheduleReconnect() {
  clearTimeout(view.retryTimer);
  const delay = Math.min(5000, 500 * 2 ** view.retry);
  view.retry = Math.min(view.retry + 1, 6);
  setConn(navigator.onLine === false ? "Offline: waiting for the network…" : "Connection lost: reconnecting…");
  view.retryTimer = setTimeout(async () => {
    // The game may be gone (an unknown id): then there is nothing to reconnect to.
    try {
      const g = await api("GET", `/api/online/games/${encodeURIComponent(view.id)}`);
      applyFull(g);
    } catch (e) {
      if (e instanceof ApiError && e.status === 404) { setConn(errorText(e)); return; }
    }
    connect();
  }, delay);
}

function fmtClock(ms) {
  ms = Math.max(0, ms);
  if (ms < 10000) return (ms / 1000).toFixed(1);
  const s = Math.ceil(ms / 1000);
  const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), sec = s % 60;
  const mm = h ? String(m).padStart(2, "0") : String(m);
  return (h ? h + ":" : "") + mm + ":" + String(sec).padStart(2, "0");
}

// A side's time left now: the server's reading, less the time since it came for the side
// to move.
function clockLeft(side) {
  const s = view.state;
  if (!s) return 0;
  const base = side === "white" ? s.wtime : s.btime;
  if (running(s) && s.turn === side && !view.pending) return Math.max(0, base - (performance.now() - view.stateAt));
  return base;
}

function renderClocks() {
  const s = view.state;
  if (!s) return;
  const top = flipped() ? "white" : "black";
  for (const [pos, side] of [["top", top], ["bottom", other(top)]]) {
    const el = $("clock-" + pos);
    const left = clockLeft(side);
    el.textContent = fmtClock(left);
    el.dataset.ms = String(Math.round(left));
    el.dataset.side = side;
    el.classList.toggle("running", running(s) && s.turn === side);
    el.classList.toggle("low", running(s) && left < 20000);
    el.setAttribute("aria-label", `${cap(side)}'s clock: ${fmtClock(left)}`);
  }
}

function renderPlayers() {
  const s = view.state, f = view.full;
  const top = flipped() ? "white" : "black";
  for (const [pos, side] of [["top", top], ["bottom", other(top)]]) {
    const el = $("name-" + pos);
    el.innerHTML = "";
    el.dataset.side = side;
    const dot = document.createElement("span");
    dot.className = "dot " + side;
    dot.setAttribute("aria-hidden", "true");
    el.appendChild(dot);
    const p = f && f[side];
    const name = document.createElement("span");
    name.className = "who";
    name.textContent = p ? p.name : "waiting for a player";
    el.appendChild(name);
    if (p && p.rating != null) {
      const r = document.createElement("span");
      r.className = "rating";
      const d = over(s) && s.ratingDiff ? s.ratingDiff[side] : null;
      r.textContent = `(${p.rating}${p.provisional ? "?" : ""}${d == null ? "" : d > 0 ? " +" + d : d < 0 ? " −" + -d : " ±0"})`;
      el.appendChild(r);
    }
    if (p && p.guest) {
      const g = document.createElement("span");
      g.className = "tag";
      g.textContent = "guest";
      el.appendChild(g);
    }
    el.classList.toggle("tomove", running(s) && s.turn === side);
    el.classList.toggle("gone", !!(running(s) && s.gone && s.gone[side]));
  }
}

function setStatus(text) { $("status").textContent = text; }

function statusText() {
  const s = view.state, f = view.full;
  if (!s) return "";
  if (s.status === "created") return view.you ? "Waiting for an opponent to take the other seat." : "This game waits for a second player.";
  if (running(s)) {
    if (view.pending) return "Move sent…";
    if (view.you && s.turn === view.you) {
      const forced = view.legal.length && view.legal.every((m) => m.captures.length > 0);
      return "Your turn" + (forced ? ": a capture is forced." : ".");
    }
    const p = f && f[s.turn];
    return `${cap(s.turn)} to move${p ? ` (${p.name})` : ""}.`;
  }
  return s.description || "The game is over.";
}

function resultText() {
  const s = view.state, f = view.full;
  const diffs = [];
  for (const side of SIDES) {
    const d = s.ratingDiff && s.ratingDiff[side];
    if (d == null || !f || !f[side]) continue;
    diffs.push(`${f[side].name} ${d > 0 ? "+" : d < 0 ? "−" : "±"}${Math.abs(d)}`);
  }
  return { head: s.description || "The game is over.", diffs: diffs.join(" · ") };
}

function renderResult() {
  const s = view.state;
  const box = $("result");
  box.hidden = !over(s);
  if (!over(s)) return;
  const { head, diffs } = resultText();
  box.innerHTML = "";
  const strong = document.createElement("span");
  strong.textContent = head;
  box.appendChild(strong);
  if (diffs) {
    const small = document.createElement("span");
    small.className = "diffs";
    small.dataset.testid = "rating-diffs";
    small.textContent = "Rating: " + diffs;
    box.appendChild(small);
  }
}

function renderActions() {
  const s = view.state, f = view.full, you = view.you;
  if (!s) return;
  const playing = running(s) && !!you;
  const n = plies(s).length;
  const opp = you ? other(you) : null;
  const offer = (kind, side) => !!s[(side === "white" ? "w" : "b") + kind];
  // Take the seat / share the link.
  const open = s.status === "created";
  const free = f && SIDES.filter((side) => !f[side]);
  $("seat-box").hidden = !(open && !you && free && free.length);
  if (open && !you && f && f.rated && !(me && !me.guest)) $("seat-text").textContent = "This rated game waits for an opponent: sign up or log in above, then take the seat.";
  else if (open && !you) $("seat-text").textContent = "This game waits for an opponent." + (me ? "" : " You will play as a guest unless you log in above.");
  $("share-box").hidden = !(open && you);
  if (open && you) $("share-url").value = location.origin + "/online/" + view.id;
  // In play.
  $("btn-abort").hidden = !(playing && n < 2);
  $("btn-resign").hidden = !(playing && n >= 2);
  $("btn-draw").hidden = !playing;
  $("btn-takeback").hidden = !playing;
  if (playing) {
    const mine = offer("draw", you);
    $("btn-draw").disabled = mine;
    $("btn-draw").textContent = mine ? "Draw offered" : "Offer draw";
    const myTb = offer("takeback", you);
    const myMoves = you === "white" ? Math.ceil(n / 2) : Math.floor(n / 2);
    $("btn-takeback").disabled = myTb || myMoves === 0;
    $("btn-takeback").textContent = myTb ? "Takeback proposed" : "Propose takeback";
  }
  $("resign-ask").hidden = !(playing && view.resignAsk);
  $("draw-ask").hidden = !(playing && offer("draw", opp));
  $("takeback-ask").hidden = !(playing && offer("takeback", opp));
  // The opponent left.
  const gone = playing && s.gone && s.gone[opp];
  $("claim-box").hidden = !gone;
  if (gone) {
    const wait = view.claimAt ? Math.ceil((view.claimAt - performance.now()) / 1000) : 0;
    $("claim-text").textContent = wait > 0
      ? `Your opponent left the game. If they do not come back, you can claim victory in ${wait} s.`
      : "Your opponent left the game. You can claim victory, call it a draw, or wait for them.";
    $("btn-claim-win").disabled = wait > 0;
    $("btn-claim-draw").disabled = wait > 0;
  }
  // After the game.
  const seated = f && f.white && f.black;
  const canRematch = over(s) && !!you && seated && !s.rematch;
  $("btn-rematch").hidden = !canRematch;
  if (canRematch) {
    const mine = offer("rematch", you), theirs = offer("rematch", opp);
    $("btn-rematch").disabled = mine;
    $("btn-rematch").textContent = mine ? "Rematch offered" : theirs ? "Accept rematch" : "Rematch";
  }
  const rematchNote = over(s) && (s.rematch || (you && offer("rematch", opp)) || (!you && (s.wrematch || s.brematch)));
  $("rematch-box").hidden = !rematchNote;
  if (rematchNote) {
    $("rematch-text").textContent = s.rematch
      ? (you ? "The rematch starts…" : "The players play a rematch.")
      : you ? "Your opponent wants a rematch." : "A player asks for a rematch.";
    $("rematch-link").hidden = !s.rematch;
    if (s.rematch) $("rematch-link").href = "/online/" + s.rematch;
  }
}

function renderMoves() {
  const list = $("movelist");
  const moves = plies(view.state);
  list.innerHTML = "";
  for (let i = 0; i < moves.length; i += 2) {
    const li = document.createElement("li");
    const num = document.createElement("span");
    num.className = "num";
    num.textContent = i / 2 + 1 + ".";
    li.appendChild(num);
    for (const j of [i, i + 1]) {
      const span = document.createElement("span");
      span.className = "mv";
      if (j < moves.length) {
        span.textContent = moves[j];
        span.dataset.ply = String(j + 1);
        if (j === moves.length - 1) span.classList.add("cur");
      }
      li.appendChild(span);
    }
    list.appendChild(li);
  }
  if (over(view.state)) {
    const li = document.createElement("li");
    const r = document.createElement("span");
    r.className = "result";
    const code = view.state.outcome || "";
    const who = code.split(":")[0];
    r.textContent = who === "white" ? "1–0" : who === "black" ? "0–1" : who === "draw" ? "½–½" : code === "aborted" ? "aborted" : code;
    r.title = view.state.description || code;
    li.appendChild(r);
    list.appendChild(li);
  }
  list.scrollTop = list.scrollHeight;
}

function chatKey() { return "damasi.online.hideChat." + (me ? me.name : ""); }
function chatHidden() { return localStorage.getItem(chatKey()) === "1"; }
function renderChatHidden() { $("chat-body").hidden = chatHidden(); }

function renderChat() {
  const ul = $("chat-lines");
  ul.innerHTML = "";
  for (const l of view.chat) {
    const li = document.createElement("li");
    const who = document.createElement("span");
    who.className = "who";
    who.textContent = l.username + ":";
    li.append(who, l.text);
    ul.appendChild(li);
  }
  ul.scrollTop = ul.scrollHeight;
  const f = view.full;
  const canTalk = !!(f && f.chatEnabled && view.you);
  $("chat-form").hidden = !canTalk;
  $("chat").hidden = !(f && f.chatEnabled);
}

function renderInfo() {
  const f = view.full;
  if (!f) return;
  $("game-info").textContent = `${f.rated ? "Rated" : "Casual"} · ${cap(f.speed)} ${clockText(f.clock)}` +
    (view.you ? ` · you play ${view.you}` : " · you are watching");
}

function renderTitle() {
  const s = view.state;
  const mine = running(s) && view.you && s.turn === view.you;
  document.title = (mine ? "• Your turn · " : "") + "damasi online: game " + view.id;
}

function renderGame() {
  renderTitle();
  renderBoard();
  renderPlayers();
  renderClocks();
  setStatus(statusText());
  $("status").classList.toggle("over", over(view.state));
  renderResult();
  renderActions();
  renderMoves();
  renderInfo();
}

async function takeSeat() {
  const f = view.full;
  if (!me && f && f.rated) { toast("This game is rated: sign up or log in above first (guests play casual games only)."); return; }
  if (!(await ensureSession())) return;
  const color = new URLSearchParams(location.search).get("color") || undefined;
  const r = await act($("btn-seat"), () => api("POST", `/api/online/games/${encodeURIComponent(view.id)}/join`, color ? { color } : {}));
  if (!r) return;
  // The socket knows its player from when it opened: open it again as the seated player.
  connect();
}

function wireGame() {
  const board = $("board");
  board.addEventListener("click", (e) => {
    const d = e.target.closest(".sq");
    if (d) { view.cursor = d.dataset.sq; activate(d.dataset.sq); }
  });
  board.addEventListener("keydown", boardKey);
  enableUserShapes(board);
  board.addEventListener("focus", renderBoard);
  board.addEventListener("blur", renderBoard);
  const gameAction = (msg, path, body) => () => send(msg, () => api("POST", `/api/online/games/${view.id}/${path}`, body || {}));
  $("btn-flip").addEventListener("click", () => { view.flip = !view.flip; renderGame(); });
  $("btn-seat").addEventListener("click", takeSeat);
  $("btn-share-copy").addEventListener("click", () => copyField($("share-url")));
  $("btn-withdraw").addEventListener("click", gameAction({ t: "abort" }, "abort"));
  $("btn-abort").addEventListener("click", gameAction({ t: "abort" }, "abort"));
  $("btn-resign").addEventListener("click", () => { view.resignAsk = true; renderActions(); $("btn-resign-yes").focus(); });
  $("btn-resign-no").addEventListener("click", () => { view.resignAsk = false; renderActions(); });
  $("btn-resign-yes").addEventListener("click", () => { view.resignAsk = false; renderActions(); gameAction({ t: "resign" }, "resign")(); });
  $("btn-draw").addEventListener("click", gameAction({ t: "draw", yes: true }, "draw/yes"));
  $("btn-draw-yes").addEventListener("click", gameAction({ t: "draw", yes: true }, "draw/yes"));
  $("btn-draw-no").addEventListener("click", gameAction({ t: "draw", yes: false }, "draw/no"));
  $("btn-takeback").addEventListener("click", gameAction({ t: "takeback", yes: true }, "takeback/yes"));
  $("btn-takeback-yes").addEventListener("click", gameAction({ t: "takeback", yes: true }, "takeback/yes"));
  $("btn-takeback-no").addEventListener("click", gameAction({ t: "takeback", yes: false }, "takeback/no"));
  $("btn-claim-win").addEventListener("click", gameAction({ t: "claim", win: true }, "claim", { win: true }));
  $("btn-claim-draw").addEventListener("click", gameAction({ t: "claim", win: false }, "claim", { win: false }));
  $("btn-rematch").addEventListener("click", gameAction({ t: "rematch" }, "rematch"));
  $("sound").checked = soundOn();
  $("sound").addEventListener("change", () => localStorage.setItem("damasi.online.sound", $("sound").checked ? "1" : "0"));
  $("chat-hide").addEventListener("change", () => {
    localStorage.setItem(chatKey(), $("chat-hide").checked ? "1" : "0");
    renderChatHidden();
  });
  $("chat-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const text = $("chat-input").value.trim();
    if (!text) return;
    $("chat-input").value = "";
    send({ t: "chat", text }, () => api("POST", `/api/online/games/${view.id}/chat`, { text }));
  });
  // A new network: the old connection may be dead without knowing it, so open a new one.
  window.addEventListener("online", () => { view.retry = 0; connect(); });
  window.addEventListener("offline", () => setConn("Offline: waiting for the network…"));
  document.addEventListener("visibilitychange", () => {
    if (!document.hidden && !view.wsOpen && view.id) { view.retry = 0; connect(); }
  });
  // The clocks count down between two states of the server, and a claim's wait runs out.
  setInterval(() => {
    renderClocks();
    if (view.claimAt) renderActions();
  }, 100);
}

async function startGame(id) {
  view.id = id;
  $("game-view").hidden = false;
  $("game-panel").hidden = false;
  $("link-lobby").removeAttribute("aria-current");
  document.title = "damasi online: game " + id;
  buildBoard();
  wireGame();
  $("chat-hide").checked = chatHidden();
  renderChatHidden();
  accountChanged = () => {
    if (view.full) { view.you = seatedAs(view.full); renderGame(); renderChat(); }
    $("chat-hide").checked = chatHidden();
    renderChatHidden();
    connect();
  };
  try {
    applyFull(await api("GET", `/api/online/games/${encodeURIComponent(id)}`));
  } catch (e) {
    if (e instanceof ApiError && e.status === 404) {
      setStatus(errorText(e) + ".");
      $("game-panel").hidden = true;
      return;
    }
    showError(e);
  }
  connect();
}

// ---------------------------------------------------------------------------------------------
// Start

async function boot() {
  wireAccount();
  await loadAccount();
  const m = location.pathname.match(/^\/online\/([A-Za-z0-9]+)\/?$/);
  if (m) await startGame(m[1]);
  else startLobby();
  document.body.dataset.ready = "1";
}

boot();
