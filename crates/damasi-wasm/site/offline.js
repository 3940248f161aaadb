// The offline page: the board and controls in this thread, the rules from the wasm module's
// `Game` (the page holds no rules of its own), the engine in a worker speaking Hub lines
// (worker.js), the games in IndexedDB, the files in a service worker's cache (sw.js).
import init, { Game } from "./damasi_wasm.js";
import { BrowserEngine } from "./engine.js";

const $ = (id) => document.getElementById(id);
const MOVE_TIME = 0.5; // seconds a move; weaker levels also search shallower
const FILES = "abcdefgh";

let game = null;
let gameId = null;
let human = "white";
let level = 5;
let selected = null;
let thinking = false;
let lastMove = null;
let stopped = false;   // the reader stopped the engine's thought: it moves when asked again

// ---------------------------------------------------------------- engine (worker, Hub lines)
// engine.js: a search can be stopped at once (the worker is ended and a new one started).
const engine = new BrowserEngine();

async function askEngine() {
  const moves = game.hub_moves();
  const res = await engine.search([
    `set-param name=level value=${level}`,
    `pos pos=${game.start_board()}` + (moves ? ` moves="${moves}"` : ""),
    `level move-time=${MOVE_TIME}`,
    "go think",
  ]);
  return res.move;
}

// ---------------------------------------------------------------- games (IndexedDB)
function openDb() {
  return new Promise((resolve, reject) => {
    const req = indexedDB.open("damasi", 1);
    req.onupgradeneeded = () => req.result.createObjectStore("games", { keyPath: "id", autoIncrement: true });
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

async function store(mode, action) {
  const db = await openDb();
  return new Promise((resolve, reject) => {
    const tx = db.transaction("games", mode);
    const req = action(tx.objectStore("games"));
    tx.oncomplete = () => resolve(req.result);
    tx.onerror = () => reject(tx.error);
  });
}

async function saveGame() {
  const record = {
    pdn: game.pdn(),
    human,
    level,
    result: game.result(),
    plies: game.ply(),
    updated: Date.now(),
  };
  if (gameId !== null) record.id = gameId;
  gameId = await store("readwrite", (s) => s.put(record));
  localStorage.setItem("damasi.current", String(gameId));
  await renderGames();
}

async function loadGame(id) {
  const record = await store("readonly", (s) => s.get(id));
  if (!record) return false;
  game = Game.from_pdn(record.pdn);
  gameId = record.id;
  human = record.human;
  level = record.level;
  $("side").value = human;
  $("level").value = String(level);
  localStorage.setItem("damasi.current", String(gameId));
  lastMove = null;
  selected = null;
  return true;
}

async function renderGames() {
  const list = await store("readonly", (s) => s.getAll());
  const ul = $("games");
  ul.replaceChildren();
  for (const g of list.sort((a, b) => b.updated - a.updated)) {
    const li = document.createElement("li");
    const when = new Date(g.updated).toLocaleString();
    li.textContent = `#${g.id} · ${when} · ${g.plies} plies · ${g.result} `;
    li.dataset.id = String(g.id);
    const open = document.createElement("button");
    open.textContent = g.id === gameId ? "Current" : "Open";
    open.disabled = g.id === gameId;
    open.onclick = async () => { if (!thinking && await loadGame(g.id)) { render(); await renderGames(); maybeEngine(); } };
    li.append(open);
    ul.append(li);
  }
}

// ---------------------------------------------------------------- board and controls
function squareName(i) {
  // Index i of the Hub board string (after the side letter): a8 first, h1 last.
  return FILES[i % 8] + String(8 - Math.floor(i / 8));
}

function render() {
  const board = game.board();
  const legal = thinking ? [] : JSON.parse(game.legal());
  const targets = new Set(legal.filter((m) => m.from === selected).map((m) => m.to));
  const el = $("board");
  el.replaceChildren();
  for (let k = 0; k < 64; k++) {
    const i = human === "white" ? k : 63 - k;
    const name = squareName(i);
    const sq = document.createElement("button");
    sq.className = "sq";
    const file = i % 8, rank = 7 - Math.floor(i / 8);
    if ((file + rank) % 2 === 0) sq.classList.add("dark");
    if (name === selected) sq.classList.add("sel");
    if (targets.has(name)) sq.classList.add("target");
    if (lastMove && (name === lastMove.from || name === lastMove.to)) sq.classList.add("last");
    sq.dataset.square = name;
    sq.setAttribute("aria-label", name);
    const c = board[i + 1];
    if (c !== "e") {
      const p = document.createElement("span");
      p.className = "piece " + (c.toLowerCase() === "w" ? "white" : "black");
      if (c === "W" || c === "B") p.textContent = "♔";
      sq.append(p);
    }
    sq.onclick = () => clickSquare(name, legal);
    el.append(sq);
  }
  const ol = $("moves");
  ol.replaceChildren();
  const history = JSON.parse(game.history());
  for (let i = 0; i < history.length; i += 2) {
    const li = document.createElement("li");
    li.textContent = history.slice(i, i + 2).join("  ");
    ol.append(li);
  }
  const outcome = game.outcome();
  $("status").textContent = outcome
    ? `${outcome} (${game.result()})`
    : thinking ? "The engine is thinking…"
    : stopped && game.turn() !== human ? "The engine was stopped: press Engine move"
    : `Your move (${human === "white" ? "White" : "Black"})`;
  $("stop").hidden = !thinking;
  $("go").hidden = thinking || !!outcome || game.turn() === human;
  document.body.dataset.state = outcome ? "over" : thinking ? "thinking" : "ready";
  document.body.dataset.ply = String(game.ply());
  $("net").textContent = (navigator.onLine ? "online" : "offline") + " · no server needed";
}

function clickSquare(name, legal) {
  if (thinking || game.outcome() || game.turn() !== human) return;
  const moves = legal.filter((m) => m.from === selected && m.to === name);
  if (moves.length > 0) {
    // Two captures with the same start and end differ in the pieces taken: the first is played
    // (type the move to choose another).
    playHuman(moves[0].text);
    return;
  }
  selected = legal.some((m) => m.from === name) ? name : null;
  render();
}

async function playHuman(text) {
  try {
    const before = { from: null, to: null };
    const played = game.play(text);
    before.from = played.slice(0, 2);
    before.to = played.replace(/=K$/, "").slice(-2);
    lastMove = before;
  } catch (e) {
    $("status").textContent = String(e);
    return;
  }
  selected = null;
  render();
  await saveGame();
  await maybeEngine();
}

async function maybeEngine() {
  if (game.outcome() || game.turn() === human || thinking) return;
  thinking = true;
  render();
  const hub = await askEngine();
  thinking = false;
  stopped = !hub;
  if (hub) {
    const played = game.play_hub(hub);
    lastMove = { from: played.slice(0, 2), to: played.replace(/=K$/, "").slice(-2) };
  }
  render();
  await saveGame();
}

async function newGame() {
  if (thinking) engine.stop();
  while (thinking) await new Promise((r) => setTimeout(r, 10));
  human = $("side").value;
  level = Number($("level").value);
  game = new Game();
  game.set_tag("Event", "damasi offline");
  game.set_tag("Date", new Date().toISOString().slice(0, 10).replace(/-/g, "."));
  game.set_tag(human === "white" ? "White" : "Black", "You");
  game.set_tag(human === "white" ? "Black" : "White", `damasi level ${level}`);
  gameId = null;
  lastMove = null;
  selected = null;
  render();
  await saveGame();
  await maybeEngine();
}

async function main() {
  for (let n = 1; n <= 10; n++) $("level").append(new Option(String(n), String(n), n === 5, n === 5));
  if ("serviceWorker" in navigator) {
    navigator.serviceWorker.register("sw.js").catch((e) => console.warn("service worker:", e));
  }
  await init();
  const current = Number(localStorage.getItem("damasi.current"));
  if (!(current && await loadGame(current))) {
    await newGame();
  } else {
    render();
    await renderGames();
    await maybeEngine();
  }
  $("new").onclick = newGame;
  $("stop").onclick = () => engine.stop();
  $("go").onclick = () => maybeEngine();
  $("takeback").onclick = async () => {
    if (thinking) return;
    do { if (!game.undo()) break; } while (game.turn() !== human);
    lastMove = null;
    selected = null;
    render();
    await saveGame();
  };
  $("resign").onclick = async () => {
    if (thinking || game.outcome()) return;
    game.resign(human);
    render();
    await saveGame();
  };
  $("move-form").onsubmit = (e) => {
    e.preventDefault();
    const text = $("move-input").value.trim();
    if (text && !thinking && game.turn() === human) { $("move-input").value = ""; playHuman(text); }
  };
  addEventListener("online", render);
  addEventListener("offline", render);
}

// For tests and the console: the legal moves and the position, from the rules module.
window.damasiOffline = {
  legal: () => JSON.parse(game.legal()),
  fen: () => game.fen(),
  gameId: () => gameId,
};

main();
