// The damasi page. It holds no rules of the game: legal moves (with their routes), positions
// and outcomes all come from the server's JSON API.
"use strict";

const FILES = "abcdefgh";
const $ = (id) => document.getElementById(id);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const STEP_MS = window.matchMedia("(prefers-reduced-motion: reduce)").matches ? 0 : 180;

// ---------------------------------------------------------------------------------------------
// Text

let lang = localStorage.getItem("damasi.lang") || ((navigator.language || "en").startsWith("tr") ? "tr" : "en");

function t(key, vars) {
  let s = (I18N[lang] && I18N[lang][key]) || I18N.en[key] || key;
  for (const [k, v] of Object.entries(vars || {})) s = s.replace("{" + k + "}", v);
  return s;
}
function sideName(side) { return t(side === "white" || side === "W" ? "white" : "black"); }

function translateReason(reason) {
  if (lang === "en" || !reason) return reason;
  const col = (c) => (c === "White" ? "Beyaz" : c === "Black" ? "Siyah" : c);
  const fixed = {
    "draw: one piece each": "Berabere: iki tarafta da birer taş",
    "draw: threefold repetition": "Berabere: üç kez tekrar",
    "draw: both sides blocked": "Berabere: iki taraf da kapalı",
    "draw: both sides are blocked": "Berabere: iki taraf da kapalı",
    "draw: agreed": "Berabere: anlaşmayla",
    "draw: no-capture limit reached": "Berabere: taş almadan hamle sınırı doldu",
  };
  if (fixed[reason]) return fixed[reason];
  const rules = [
    [/^(\w+) has no pieces left: (\w+) wins$/, (a, b) => `${col(a)} taşı kalmadı: ${col(b)} kazanır`],
    [/^(\w+) is blocked: (\w+) wins$/, (a, b) => `${col(a)} hamle yapamıyor: ${col(b)} kazanır`],
    [/^(\w+) resigns: (\w+) wins$/, (a, b) => `${col(a)} terk etti: ${col(b)} kazanır`],
    [/^(\w+) ran out of time: (\w+) wins$/, (a, b) => `${col(a)} süresi bitti: ${col(b)} kazanır`],
    [/^king against a lone man: (\w+) wins$/, (a) => `Tek taşa karşı dama: ${col(a)} kazanır`],
  ];
  for (const [re, f] of rules) {
    const m = reason.match(re);
    if (m) return f(...m.slice(1));
  }
  return reason;
}

function applyI18n() {
  document.documentElement.lang = lang;
  document.querySelectorAll("[data-i18n]").forEach((el) => { el.textContent = t(el.dataset.i18n); });
  $("move-input").placeholder = "d3-d4";
  for (const b of document.querySelectorAll(".langs button")) b.setAttribute("aria-pressed", String(b.dataset.lang === lang));
}

function announce(text) {
  const el = $("announce");
  el.textContent = "";
  setTimeout(() => { el.textContent = text; }, 30);
}

let toastTimer = null;
function toast(text, ms = 3500) {
  const el = $("toast");
  el.onclick = () => { el.hidden = true; };
  el.textContent = text;
  el.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { el.hidden = true; }, ms);
}

// ---------------------------------------------------------------------------------------------
// Server

class ApiError extends Error {
  constructor(status, body) {
    super((body && body.error) || "HTTP " + status);
    this.status = status;
    this.legal = (body && body.legal) || null;
  }
}

async function api(method, path, body, signal) {
  const opts = { method, headers: {}, signal };
  if (body !== undefined) {
    opts.headers["content-type"] = "application/json";
    opts.body = JSON.stringify(body);
  }
  const res = await fetch(path, opts);
  const text = await res.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch (_) { data = { error: text }; }
  if (!res.ok) throw new ApiError(res.status, data);
  return data;
}

function showError(e) {
  if (e instanceof ApiError && e.legal) {
    toast(e.message, 6000);
  } else {
    toast(e.message || String(e));
  }
}

// ---------------------------------------------------------------------------------------------
// Positions (display only: FEN lists where pieces stand)

function parseFen(fen) {
  const out = { side: "W", pieces: {} };
  const parts = (fen || "").split(":");
  if (parts.length !== 3) return out;
  out.side = parts[0].trim().toUpperCase();
  for (const field of parts.slice(1)) {
    const color = field.trim()[0].toLowerCase();
    for (let item of field.trim().slice(1).split(",")) {
      item = item.trim();
      if (!item) continue;
      const king = item[0] === "K";
      let name = king ? item.slice(1) : item;
      if (/^\d+$/.test(name)) { const n = Number(name) - 1; name = FILES[n % 8] + (Math.floor(n / 8) + 1); }
      out.pieces[name] = { c: color, k: king };
    }
  }
  return out;
}

function fenOf(pieces, side) {
  const list = (c) => Object.keys(pieces).filter((s) => pieces[s].c === c)
    .sort((a, b) => sqIndex(a) - sqIndex(b))
    .map((s) => (pieces[s].k ? "K" : "") + s).join(",");
  return `${side}:W${list("w")}:B${list("b")}`;
}
function sqIndex(s) { return (Number(s[1]) - 1) * 8 + FILES.indexOf(s[0]); }

// ---------------------------------------------------------------------------------------------
// The board

const board = {
  el: null, flipped: false, pos: { side: "W", pieces: {} }, pieceEls: {},
  moves: [], onMove: null, sel: null, path: [], last: null, hint: null, cursor: "d4",
  editTool: null, onEdit: null, drag: null,

  init() {
    this.el = $("board");
    this.el.addEventListener("pointerdown", (e) => this.pointerDown(e));
    this.el.addEventListener("keydown", (e) => this.keyDown(e));
    this.el.addEventListener("focus", () => this.drawMarks());
    this.el.addEventListener("blur", () => this.drawMarks());
    this.build();
  },

  coords(sq) {
    const f = FILES.indexOf(sq[0]), r = Number(sq[1]) - 1;
    return this.flipped ? { col: 7 - f, row: r } : { col: f, row: 7 - r };
  },
  squareAt(col, row) {
    const f = this.flipped ? 7 - col : col, r = this.flipped ? row : 7 - row;
    return FILES[f] + (r + 1);
  },

  build() {
    this.el.innerHTML = "";
    for (let row = 0; row < 8; row++) {
      for (let col = 0; col < 8; col++) {
        const sq = this.squareAt(col, row);
        const d = document.createElement("div");
        const f = FILES.indexOf(sq[0]), r = Number(sq[1]) - 1;
        d.className = "sq" + ((f + r) % 2 === 0 ? " dk" : "");
        d.dataset.sq = sq;
        if (row === 7) { const c = document.createElement("span"); c.className = "coord file"; c.textContent = sq[0]; d.appendChild(c); }
        if (col === 0) { const c = document.createElement("span"); c.className = "coord rank"; c.textContent = sq[1]; d.appendChild(c); }
        this.el.appendChild(d);
      }
    }
    this.svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
    this.svg.setAttribute("class", "paths");
    this.svg.setAttribute("viewBox", "0 0 8 8");
    this.el.appendChild(this.svg);
    this.pieceEls = {};
    this.drawPieces();
  },

  sqEl(sq) { return this.el.querySelector(`.sq[data-sq="${sq}"]`); },

  setFlipped(f) { this.flipped = f; this.build(); },

  set(fen, opts = {}) {
    this.pos = parseFen(fen);
    this.moves = opts.moves || [];
    this.onMove = opts.onMove || null;
    this.last = opts.last || null;
    this.sel = null; this.path = [];
    this.drawPieces();
  },

  place(el, sq) {
    const { col, row } = this.coords(sq);
    el.style.left = col * 12.5 + "%";
    el.style.top = row * 12.5 + "%";
  },

  drawPieces() {
    for (const el of Object.values(this.pieceEls)) el.remove();
    this.pieceEls = {};
    for (const [sq, p] of Object.entries(this.pos.pieces)) {
      const el = document.createElement("div");
      el.className = `piece ${p.c}${p.k ? " k" : ""}`;
      el.dataset.sq = sq;
      this.place(el, sq);
      this.el.appendChild(el);
      this.pieceEls[sq] = el;
    }
    this.drawMarks();
  },

  pieceLabel(sq) {
    const p = this.pos.pieces[sq];
    if (!p) return sq;
    return `${sq}, ${sideName(p.c === "w" ? "white" : "black")} ${p.k ? (lang === "tr" ? "dama" : "king") : (lang === "tr" ? "taş" : "man")}`;
  },

  movableFroms() { return new Set(this.moves.map((m) => m.from)); },

  candidates() {
    if (!this.sel) return [];
    return this.moves.filter((m) => m.from === this.sel && this.path.every((s, i) => m.route[i] === s));
  },

  drawMarks() {
    const cands = this.candidates();
    const next = new Set(), finals = new Set(), onPath = new Set(this.path);
    for (const m of cands) {
      if (m.route.length > this.path.length) {
        next.add(m.route[this.path.length]);
        if (m.route.length === this.path.length + 1) finals.add(m.route[this.path.length]);
      }
    }
    const movable = this.movableFroms();
    for (const d of this.el.querySelectorAll(".sq")) {
      const sq = d.dataset.sq;
      d.classList.toggle("sel", sq === this.sel);
      d.classList.toggle("target", next.has(sq));
      d.classList.toggle("final", finals.has(sq));
      d.classList.toggle("onpath", onPath.has(sq));
      d.classList.toggle("last", !!this.last && this.last.includes(sq) && sq !== this.sel);
      d.classList.toggle("hintsq", !!this.hint && this.hint.includes(sq));
      d.classList.toggle("kbd", this.el.matches(":focus-visible") && sq === this.cursor);
    }
    const threatened = new Set();
    for (const m of cands) for (const v of m.captures.slice(this.path.length)) threatened.add(v);
    for (const [sq, el] of Object.entries(this.pieceEls)) {
      el.classList.toggle("movable", movable.has(sq) && !this.editTool);
      el.classList.toggle("threat", threatened.has(sq));
      el.classList.remove("captured");
    }
    // Pieces already jumped on the way so far look taken; the moving piece stands where it is.
    if (this.sel && this.path.length && cands.length) {
      const jumped = cands[0].captures.slice(0, this.path.length);
      for (const v of jumped) if (this.pieceEls[v]) this.pieceEls[v].classList.add("captured");
      if (this.pieceEls[this.sel]) this.place(this.pieceEls[this.sel], this.path[this.path.length - 1]);
    } else if (this.sel && this.pieceEls[this.sel] && !this.drag) {
      this.place(this.pieceEls[this.sel], this.sel);
    }
    this.drawPaths(cands);
  },

  drawPaths(cands) {
    const svg = this.svg;
    svg.innerHTML = "";
    const multi = cands.filter((m) => m.route.length > 1);
    const lines = [];
    for (const m of multi) lines.push({ pts: [m.from, ...m.route], color: "rgba(40,90,40,.55)" });
    if (this.hintMove) lines.push({ pts: [this.hintMove.from, ...this.hintMove.route], color: "rgba(40,90,200,.7)" });
    for (const l of lines) {
      const pts = l.pts.map((s) => { const c = this.coords(s); return `${c.col + 0.5},${c.row + 0.5}`; }).join(" ");
      const pl = document.createElementNS("http://www.w3.org/2000/svg", "polyline");
      pl.setAttribute("points", pts);
      pl.setAttribute("fill", "none");
      pl.setAttribute("stroke", l.color);
      pl.setAttribute("stroke-width", "0.09");
      pl.setAttribute("stroke-linecap", "round");
      pl.setAttribute("stroke-linejoin", "round");
      svg.appendChild(pl);
    }
  },

  reject(message) {
    this.el.classList.remove("shake");
    void this.el.offsetWidth;
    this.el.classList.add("shake");
    if (message) { setStatusNote(message); announce(message); }
  },

  select(sq) { this.sel = sq; this.path = []; this.drawMarks(); },
  clearSel() {
    const had = this.sel;
    this.sel = null; this.path = [];
    if (had && this.pieceEls[had]) this.place(this.pieceEls[had], had);
    this.drawMarks();
  },

  // One click (or a drop, or Enter) on a square.
  activate(sq) {
    if (this.editTool) { if (this.onEdit) this.onEdit(sq); return; }
    if (!this.onMove) return;
    const movable = this.movableFroms();
    if (this.sel) {
      const cands = this.candidates();
      const nextHits = cands.filter((m) => m.route[this.path.length] === sq);
      if (nextHits.length) {
        this.path.push(sq);
        const done = nextHits.filter((m) => m.route.length === this.path.length);
        if (done.length && done.length === nextHits.length) return this.commit(done[0]);
        setStatusNote(t("chooseNext"));
        this.drawMarks();
        return;
      }
      const byEnd = cands.filter((m) => m.to === sq);
      if (byEnd.length === 1) return this.commit(byEnd[0]);
      if (sq === this.sel && this.path.length === 0) return this.clearSel();
      if (movable.has(sq) && this.path.length === 0) return this.select(sq);
      if (this.path.length) { this.clearSel(); return; }
      this.clearSel();
      return;
    }
    if (movable.has(sq)) return this.select(sq);
    const p = this.pos.pieces[sq];
    if (p && p.c === this.pos.side.toLowerCase()) {
      const forced = this.moves.length && this.moves.every((m) => m.captures.length > 0);
      this.reject(forced ? t("mustCapture") : t("cannotMove"));
    }
  },

  commit(m) {
    const fn = this.onMove;
    const dragged = this.dropping;
    this.sel = null; this.path = [];
    this.drawMarks();
    if (fn) fn(m, { dragged });
  },

  eventSquare(e) {
    const r = this.el.getBoundingClientRect();
    const bw = (r.width - this.el.clientWidth) / 2;
    const x = e.clientX - r.left - bw, y = e.clientY - r.top - bw;
    const size = this.el.clientWidth / 8;
    const col = Math.floor(x / size), row = Math.floor(y / size);
    if (col < 0 || col > 7 || row < 0 || row > 7) return null;
    return this.squareAt(col, row);
  },

  pointerDown(e) {
    if (e.button !== 0) return;
    const sq = this.eventSquare(e);
    if (!sq) return;
    this.cursor = sq;
    const canDrag = !this.editTool && this.onMove && this.movableFroms().has(sq) && (!this.sel || this.path.length === 0);
    if (!canDrag) { this.activate(sq); return; }
    e.preventDefault();
    const wasSelected = this.sel === sq;
    this.select(sq);
    const el = this.pieceEls[sq];
    const start = { x: e.clientX, y: e.clientY };
    let moved = false;
    const size = this.el.clientWidth / 8;
    const r0 = this.el.getBoundingClientRect();
    const bw = (r0.width - this.el.clientWidth) / 2;
    const move = (ev) => {
      if (!moved && Math.hypot(ev.clientX - start.x, ev.clientY - start.y) < 5) return;
      moved = true;
      this.drag = sq;
      el.classList.add("dragging");
      el.style.left = (ev.clientX - r0.left - bw - size / 2) + "px";
      el.style.top = (ev.clientY - r0.top - bw - size / 2) + "px";
    };
    const up = (ev) => {
      window.removeEventListener("pointermove", move);
      window.removeEventListener("pointerup", up);
      el.classList.remove("dragging");
      this.drag = null;
      this.place(el, sq);
      if (!moved) { if (wasSelected) this.clearSel(); return; }
      const target = this.eventSquare(ev);
      if (!target || target === sq) { this.drawMarks(); return; }
      this.dropping = true;
      try { this.activate(target); } finally { this.dropping = false; }
    };
    window.addEventListener("pointermove", move);
    window.addEventListener("pointerup", up);
  },

  keyDown(e) {
    const c = this.coords(this.cursor);
    const moves = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
    if (moves[e.key]) {
      const [dc, dr] = moves[e.key];
      const col = Math.min(7, Math.max(0, c.col + dc)), row = Math.min(7, Math.max(0, c.row + dr));
      this.cursor = this.squareAt(col, row);
      const c2 = this.candidates();
      const isTarget = c2.some((m) => m.route[this.path.length] === this.cursor);
      announce(this.pieceLabel(this.cursor) + (isTarget ? (lang === "tr" ? ", hedef" : ", target") : ""));
      this.drawMarks();
      e.preventDefault();
      e.stopPropagation();
    } else if (e.key === "Enter" || e.key === " ") {
      this.activate(this.cursor);
      e.preventDefault();
      e.stopPropagation();
    } else if (e.key === "Escape") {
      this.clearSel();
    }
  },

  // Plays `m` on the shown position with a step for each landing square (at once after a
  // drag). With `nextFen` the board then shows that position; without, it stays as moved
  // until the caller sets the next position.
  async animate(m, nextFen, instant = false) {
    this.sel = null; this.path = []; this.hint = null; this.hintMove = null;
    this.drawMarks();
    const el = this.pieceEls[m.from];
    const steps = instant ? 0 : STEP_MS;
    if (el) {
      el.style.zIndex = 15;
      if (!steps) el.style.transition = "none";
      for (let i = 0; i < m.route.length; i++) {
        this.place(el, m.route[i]);
        const victim = m.captures[i];
        if (steps) await sleep(steps);
        if (victim && this.pieceEls[victim]) this.pieceEls[victim].classList.add("gone");
      }
      if (steps) await sleep(60);
    }
    if (nextFen) {
      this.pos = parseFen(nextFen);
      this.drawPieces();
    }
  },
};

// ---------------------------------------------------------------------------------------------
// Play

let game = null;        // the game as the server last described it
let viewPly = null;     // null: the live position; else the ply index shown (0 = start)
let busy = false;       // the engine is thinking
let clocks = null;      // { white_ms, black_ms } counted here while the game runs
let clockRunning = false;
let lastTick = 0;
let statusNote = "";

function playerOf(side) { return game ? game[side] : { kind: "human" }; }
function vsEngine() { return game && (game.white.kind === "engine" || game.black.kind === "engine"); }
function humanSide() {
  if (!game) return "white";
  if (game.white.kind === "human" && game.black.kind === "engine") return "white";
  if (game.black.kind === "human" && game.white.kind === "engine") return "black";
  return game.side;
}
function notation() { return $("notation").value; }
function moveText(m) { return notation() === "captured" ? m.captured : m.landing; }

function setStatusNote(s) { statusNote = s; renderStatus(); }

let bannerShownFor = null;
function renderBanner() {
  const el = $("banner");
  const over = mode === "play" && game && game.outcome.over && viewPly === null;
  const key = over ? game.id + ":" + game.plies.length + ":" + game.outcome.reason : null;
  if (!over || bannerShownFor === "dismissed:" + key) { el.hidden = true; return; }
  bannerShownFor = key;
  el.innerHTML = "";
  const w = game.outcome.winner;
  el.append(w ? t(w === "white" ? "whiteWins" : "blackWins") : t("drawn"));
  const why = document.createElement("small");
  why.textContent = translateReason(game.outcome.reason) + " · " + game.outcome.result;
  el.appendChild(why);
  el.hidden = false;
  el.onclick = () => { bannerShownFor = "dismissed:" + key; el.hidden = true; };
}

function renderStatus() {
  renderBanner();
  const el = $("status");
  el.classList.remove("over", "thinking");
  if (mode === "study") { el.textContent = statusNote; return; }
  if (!game) { el.textContent = ""; return; }
  if (game.outcome.over) {
    el.textContent = translateReason(game.outcome.reason) + " (" + game.outcome.result + ")";
    el.classList.add("over");
  } else if (viewPly !== null) {
    el.textContent = t("viewing", { n: viewPly });
  } else if (busy) {
    el.textContent = t("thinking");
    el.classList.add("thinking");
  } else {
    const base = vsEngine() ? t("yourMove", { side: sideName(game.side) }) : t("toMove", { side: sideName(game.side) });
    el.textContent = statusNote ? base + ". " + statusNote : base + (game.forced_capture ? ". " + t("mustCapture") : "");
  }
}

function playerLabel(side) {
  const p = playerOf(side);
  const who = p.kind === "engine" ? t("engineLevel", { n: p.level }) : (vsEngine() ? t("you") : t("person"));
  return `<span class="dot ${side}"></span>${sideName(side)} · ${who}`;
}

function fmtClock(ms) {
  ms = Math.max(0, ms);
  const s = Math.ceil(ms / 1000);
  const m = Math.floor(s / 60);
  if (ms < 10000) return `${m}:${String(s % 60).padStart(2, "0")}.${Math.floor((ms % 1000) / 100)}`;
  return `${m}:${String(s % 60).padStart(2, "0")}`;
}

function renderPlayers() {
  const topSide = board.flipped ? "white" : "black";
  const bottomSide = board.flipped ? "black" : "white";
  if (mode !== "play" || !game) {
    $("name-top").innerHTML = ""; $("name-bottom").innerHTML = "";
    $("name-top").classList.remove("tomove"); $("name-bottom").classList.remove("tomove");
    $("clock-top").hidden = true; $("clock-bottom").hidden = true;
    return;
  }
  $("name-top").innerHTML = playerLabel(topSide);
  $("name-bottom").innerHTML = playerLabel(bottomSide);
  const live = !game.outcome.over;
  $("name-top").classList.toggle("tomove", live && game.side === topSide);
  $("name-bottom").classList.toggle("tomove", live && game.side === bottomSide);
  for (const [id, side] of [["clock-top", topSide], ["clock-bottom", bottomSide]]) {
    const el = $(id);
    el.hidden = !clocks;
    if (!clocks) continue;
    const ms = clocks[side + "_ms"];
    el.textContent = fmtClock(ms);
    el.classList.toggle("running", clockRunning && game.side === side && live);
    el.classList.toggle("low", ms < 20000);
    el.setAttribute("aria-label", `${sideName(side)} ${fmtClock(ms)}`);
  }
}

function tick() {
  if (!clockRunning || !game || !clocks || game.outcome.over) { lastTick = performance.now(); return; }
  const now = performance.now();
  const key = game.side + "_ms";
  clocks[key] -= now - lastTick;
  lastTick = now;
  if (clocks[key] <= 0) {
    clocks[key] = 0;
    clockRunning = false;
    const side = game.side;
    api("POST", `/api/games/${game.id}/flag`, { side, clock: clockBody() })
      .then((g) => setGame(g)).catch(showError);
  }
  renderPlayers();
}

function clockBody() {
  if (!clocks) return undefined;
  return { white_ms: Math.max(0, Math.round(clocks.white_ms)), black_ms: Math.max(0, Math.round(clocks.black_ms)) };
}

// After `side` moves: add the increment.
function clockAfterMove(side) {
  if (!clocks || !game.clock) return;
  clocks[side + "_ms"] += game.clock.increment_ms;
  if (!clockRunning) { clockRunning = true; lastTick = performance.now(); }
}

function shownFen() {
  if (!game) return "startpos";
  if (viewPly === null || viewPly === game.plies.length) return game.fen;
  return viewPly === 0 ? game.start_fen : game.plies[viewPly - 1].fen;
}

function lastMoveSquares(ply) {
  if (!game || ply <= 0) return null;
  const m = game.plies[ply - 1].move;
  return [m.from, ...m.route];
}

function renderPlayBoard() {
  if (!game) return;
  const live = viewPly === null;
  const ply = live ? game.plies.length : viewPly;
  const myTurn = live && !busy && !game.outcome.over && playerOf(game.side).kind === "human";
  board.set(shownFen(), {
    moves: myTurn ? game.legal : [],
    onMove: myTurn ? humanMove : null,
    last: lastMoveSquares(ply),
  });
}

function renderMoveList(listEl, plies, startFen, current, onPick, result) {
  listEl.innerHTML = "";
  const blackFirst = parseFen(startFen).side === "B";
  let li = null;
  plies.forEach((p, i) => {
    const ply = i + (blackFirst ? 1 : 0);
    if (ply % 2 === 0 || i === 0) {
      li = document.createElement("li");
      const num = document.createElement("span");
      num.className = "num";
      num.textContent = Math.floor(ply / 2) + 1 + ".";
      li.appendChild(num);
      if (ply % 2 === 1) li.appendChild(document.createElement("span"));
      listEl.appendChild(li);
    }
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = moveText(p.move);
    b.dataset.ply = i + 1;
    if (current === i + 1) { b.classList.add("cur"); b.setAttribute("aria-current", "true"); }
    b.addEventListener("click", () => onPick(i + 1));
    li.appendChild(b);
  });
  if (result) {
    const r = document.createElement("li");
    r.innerHTML = `<span class="result"></span>`;
    r.firstChild.textContent = result;
    listEl.appendChild(r);
  }
  const cur = listEl.querySelector(".cur");
  if (cur) cur.scrollIntoView({ block: "nearest" });
}

function renderPlay() {
  if (!game) return;
  // The board belongs to whichever tab is shown; the game may change behind the Study tab.
  if (mode === "play") renderPlayBoard();
  const current = viewPly === null ? game.plies.length : viewPly;
  renderMoveList($("movelist"), game.plies, game.start_fen, current, (n) => browse(n), game.outcome.over ? game.outcome.result : null);
  const live = viewPly === null && !game.outcome.over;
  const humanToMove = live && !busy && playerOf(game.side).kind === "human";
  $("btn-takeback").disabled = busy || game.plies.length === 0;
  $("btn-hint").disabled = !humanToMove;
  $("btn-draw").disabled = !humanToMove;
  $("btn-resign").disabled = !live || busy;
  $("move-input").disabled = !humanToMove;
  $("btn-export-play").href = `/api/games/${game.id}/pdn`;
  $("btn-export-play").setAttribute("download", `damasi-game-${game.id}.pdn`);
  renderPlayers();
  renderStatus();
}

function setGame(g, opts = {}) {
  game = g;
  board.hint = null;
  board.hintMove = null;
  localStorage.setItem("damasi.game", String(g.id));
  if (opts.resetClock || !clocks) clocks = g.clock ? { white_ms: g.clock.white_ms, black_ms: g.clock.black_ms } : null;
  if (!g.clock) clocks = null;
  if (g.outcome.over) clockRunning = false;
  viewPly = null;
  statusNote = "";
  renderPlay();
}

function browse(n) {
  if (!game) return;
  n = Math.max(0, Math.min(game.plies.length, n));
  viewPly = n === game.plies.length ? null : n;
  board.clearSel();
  renderPlay();
  if (n > 0) announce(moveText(game.plies[n - 1].move));
}

async function humanMove(m, opts = {}) {
  if (!game || busy) return;
  const side = game.side;
  clockAfterMove(side);
  try {
    busy = true;
    const animation = board.animate(m, null, opts.dragged);
    const g = await api("POST", `/api/games/${game.id}/move`, { move: m.landing, clock: clockBody() });
    await animation;
    busy = false;
    setGame(g);
    announce(t("played", { side: sideName(side), move: moveText(m) }) + (g.outcome.over ? ". " + translateReason(g.outcome.reason) : ""));
    maybeEngine();
  } catch (e) {
    busy = false;
    showError(e);
    renderPlay();
  }
}

async function typedMove(text) {
  if (!game || busy || viewPly !== null) return;
  const side = game.side;
  try {
    const g = await api("POST", `/api/games/${game.id}/move`, { move: text, clock: clockBody() });
    const m = g.plies[g.plies.length - 1].move;
    clockAfterMove(side);
    busy = true;
    renderStatus();
    await board.animate(m, g.fen);
    busy = false;
    setGame(g);
    announce(t("played", { side: sideName(side), move: moveText(m) }));
    $("move-input").value = "";
    maybeEngine();
  } catch (e) {
    busy = false;
    if (e instanceof ApiError && e.legal) {
      toast(`${t("illegalMove")}: “${text}”. ${t("legalAre", { list: e.legal.join("  ") })}`, 7000);
      announce(t("illegalMove"));
    } else showError(e);
    renderPlay();
  }
}

async function maybeEngine() {
  if (!game || busy || game.outcome.over || playerOf(game.side).kind !== "engine") return;
  busy = true;
  const id = game.id;
  if (clocks && !clockRunning && game.plies.length > 0) { clockRunning = true; lastTick = performance.now(); }
  renderPlay();
  try {
    const res = await api("POST", `/api/games/${id}/engine`, { clock: clockBody() });
    if (!game || game.id !== id) { busy = false; return; }
    const g = res.game;
    const m = g.plies[g.plies.length - 1].move;
    const side = game.side;
    if (mode === "play" && viewPly === null) await board.animate(m, g.fen);
    clockAfterMove(side);
    busy = false;
    setGame(g);
    announce(t("enginePlays", { move: moveText(m) }) + (g.outcome.over ? ". " + translateReason(g.outcome.reason) : ""));
  } catch (e) {
    busy = false;
    showError(e);
    renderPlay();
  }
}

async function newGame(body) {
  try {
    if (game && game.plies.length === 0 && !game.outcome.over) {
      await api("DELETE", `/api/games/${game.id}`).catch(() => {});
    }
    const g = await api("POST", "/api/games", body);
    clockRunning = false;
    $("move-input").value = "";
    setGame(g, { resetClock: true });
    const flip = g.white.kind === "engine" && g.black.kind === "human";
    if (board.flipped !== flip) { board.setFlipped(flip); renderPlay(); }
    setMode("play");
    maybeEngine();
  } catch (e) { showError(e); }
}

async function loadGame(id) {
  const g = await api("GET", `/api/games/${id}`);
  clockRunning = false;
  busy = false;
  setGame(g, { resetClock: true });
  const flip = g.white.kind === "engine" && g.black.kind === "human";
  if (board.flipped !== flip) { board.setFlipped(flip); renderPlay(); }
}

async function takeBack() {
  if (!game || busy) return;
  let plies = 1;
  if (vsEngine() && playerOf(game.side).kind === "human") plies = 2;
  if (vsEngine() && game.outcome.over && playerOf(game.side).kind === "engine") plies = 1;
  if (vsEngine() && game.outcome.over && playerOf(game.side).kind === "human") plies = 2;
  // Never leave the engine to move right after a take-back of our own move only.
  if (vsEngine() && game.plies.length < plies) plies = game.plies.length;
  try {
    const g = await api("POST", `/api/games/${game.id}/takeback`, { plies });
    setGame(g);
    if (g.clock && clocks) clockRunning = g.plies.length > 0;
    maybeEngine();
  } catch (e) { showError(e); }
}

async function hint() {
  if (!game || busy) return;
  try {
    setStatusNote(t("thinking"));
    const a = await api("POST", `/api/games/${game.id}/hint`);
    statusNote = "";
    if (!a.best) return;
    board.hint = [a.best.from, ...a.best.route];
    board.hintMove = a.best;
    board.drawMarks();
    const msg = t("hintIs", { move: moveText(a.best) });
    toast(msg);
    announce(msg);
    renderStatus();
  } catch (e) { showError(e); }
}

async function offerDraw() {
  if (!game || busy || game.outcome.over) return;
  let side = vsEngine() ? humanSide() : game.side;
  if (!vsEngine() && !confirm(t("confirmDrawHuman", { side: sideName(side) }))) return;
  try {
    busy = true;
    renderStatus();
    const res = await api("POST", `/api/games/${game.id}/draw`, { side, clock: clockBody() });
    busy = false;
    setGame(res.game);
    if (vsEngine()) { const msg = t(res.accepted ? "drawAccepted" : "drawDeclined"); toast(msg); announce(msg); }
  } catch (e) { busy = false; showError(e); renderPlay(); }
}

async function resign() {
  if (!game || game.outcome.over) return;
  if (!confirm(t("confirmResign"))) return;
  const side = vsEngine() ? humanSide() : game.side;
  try {
    const g = await api("POST", `/api/games/${game.id}/resign`, { side, clock: clockBody() });
    setGame(g);
    announce(translateReason(g.outcome.reason));
  } catch (e) { showError(e); }
}

// ---------------------------------------------------------------------------------------------
// Study: free analysis of a position and a line played from it

const study = { start: null, line: [], idx: 0, legal: [], outcome: null, editing: false, edit: null, tool: "wm", seq: 0 };

function studyFen() { return study.idx === 0 ? study.start : study.line[study.idx - 1].fen; }
// The line's moves up to the shown position (the server counts them for repetitions).
function studyMoves() { return study.line.slice(0, study.idx).map((p) => p.move.landing); }

async function studyShow() {
  const fen = studyFen();
  $("fen-input").value = fen;
  const seq = ++study.seq;
  try {
    const v = await api("GET", "/api/moves?fen=" + encodeURIComponent(fen));
    if (seq !== study.seq) return;
    study.legal = v.moves;
    study.outcome = v.outcome;
    statusNote = v.outcome.over ? translateReason(v.outcome.reason) : t("toMove", { side: sideName(v.side) });
  } catch (e) { showError(e); study.legal = []; }
  if (mode !== "study" || study.editing) return;
  board.set(fen, {
    moves: study.legal,
    onMove: studyMove,
    last: study.idx > 0 ? [study.line[study.idx - 1].move.from, ...study.line[study.idx - 1].move.route] : null,
  });
  renderMoveList($("st-moves"), study.line, study.start, study.idx, (n) => { study.idx = n; studyShow(); }, null);
  renderStatus();
  analyze(fen, seq);
}

async function studyMove(m, opts = {}) {
  const fen = studyFen();
  try {
    const animation = board.animate(m, null, opts.dragged);
    const res = await api("POST", "/api/move", { fen: study.start, moves: studyMoves(), move: m.landing });
    await animation;
    study.line = study.line.slice(0, study.idx);
    study.line.push({ move: res.move, fen: res.position.fen });
    study.idx++;
    announce(moveText(res.move));
    studyShow();
  } catch (e) { showError(e); studyShow(); }
}

function scoreText(a) {
  if (a.mate !== null && a.mate !== undefined) return t(a.mate > 0 ? "mateIn" : "lossIn", { n: Math.abs(a.mate) });
  const s = a.white_score / 100;
  return (s > 0 ? "+" : "") + s.toFixed(2);
}

let analyzeTimer = null;
let analyzeAbort = null;
function analyze(fen, seq) {
  clearTimeout(analyzeTimer);
  // A search for a position no longer shown is stopped on the server when its request ends.
  if (analyzeAbort) analyzeAbort.abort();
  analyzeAbort = new AbortController();
  const signal = analyzeAbort.signal;
  $("an-score").textContent = "…";
  $("an-pv").textContent = "…";
  $("an-depth").textContent = "";
  if (study.outcome && study.outcome.over) {
    $("an-score").textContent = translateReason(study.outcome.reason);
    $("an-pv").textContent = "–";
    setEval(study.outcome.winner === "white" ? 1 : study.outcome.winner === "black" ? -1 : 0);
    return;
  }
  analyzeTimer = setTimeout(async () => {
    try {
      const a = await api("POST", "/api/analyze", { fen: study.start, moves: studyMoves(), move_time_ms: 1500 }, signal);
      if (seq !== study.seq) return;
      $("an-score").textContent = scoreText(a);
      $("an-pv").textContent = a.pv.join(" ") || "–";
      $("an-depth").textContent = a.depth ? "(" + t("depth", { n: a.depth }) + ")" : "";
      let frac;
      if (a.mate !== null && a.mate !== undefined) {
        const whiteWins = (a.mate > 0) === (parseFen(fen).side === "W");
        frac = whiteWins ? 1 : -1;
      } else frac = Math.tanh(a.white_score / 400);
      setEval(frac);
    } catch (e) {
      if (e.name === "AbortError") return;
      if (seq === study.seq) { $("an-score").textContent = "–"; $("an-pv").textContent = e.message; }
    }
  }, 150);
}

function setEval(frac) {
  // frac: -1 (Black winning) .. 1 (White winning)
  $("evalfill").style.height = (50 + 50 * frac).toFixed(1) + "%";
  $("evalbar").classList.toggle("flipped", board.flipped);
}

function startEditor() {
  study.editing = true;
  study.seq++;
  if (analyzeAbort) analyzeAbort.abort();
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
}

function editSquare(sq) {
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

function updateEditorFen() {
  study.edit.side = $("ed-side").value;
  $("fen-input").value = fenOf(study.edit.pieces, study.edit.side);
}

async function finishEditor() {
  const fen = fenOf(study.edit.pieces, $("ed-side").value);
  try {
    const v = await api("GET", "/api/moves?fen=" + encodeURIComponent(fen));
    study.editing = false;
    board.editTool = null;
    board.onEdit = null;
    $("editor").hidden = true;
    study.start = v.fen; study.line = []; study.idx = 0;
    studyShow();
  } catch (e) {
    toast(t("invalidPosition") + ": " + e.message, 6000);
  }
}

async function loadFen(fen) {
  try {
    const v = await api("GET", "/api/moves?fen=" + encodeURIComponent(fen));
    if (study.editing) { study.editing = false; board.editTool = null; $("editor").hidden = true; }
    study.start = v.fen; study.line = []; study.idx = 0;
    studyShow();
  } catch (e) { toast(e.message, 6000); }
}

async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
  } catch (_) {
    const ta = document.createElement("textarea");
    ta.value = text;
    document.body.appendChild(ta);
    ta.select();
    try { document.execCommand("copy"); } catch (_) { /* nothing more to try */ }
    ta.remove();
  }
  toast(t("copied"));
}

// ---------------------------------------------------------------------------------------------
// Saved games

function playerShort(p) { return p.kind === "engine" ? t("engineLevel", { n: p.level }) : t("person"); }

async function renderGames() {
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
        g.black_name || playerShort(g.black), String(g.plies), g.result === "*" ? t("inProgress") : g.result];
      for (const c of cells) { const td = document.createElement("td"); td.textContent = c; tr.appendChild(td); }
      tr.children[1].className = "nowrap";
      if (g.event) {
        const ev = document.createElement("div");
        ev.className = "muted small";
        ev.textContent = g.event;
        tr.children[2].appendChild(ev);
      }
      if (g.reason) {
        const why = document.createElement("div");
        why.className = "muted small";
        why.textContent = translateReason(g.reason);
        tr.children[5].appendChild(why);
      }
      const acts = document.createElement("td");
      const open = document.createElement("button");
      open.textContent = t("resume");
      open.className = "resume";
      open.addEventListener("click", async () => {
        try { await loadGame(g.id); setMode("play"); maybeEngine(); } catch (e) { showError(e); }
      });
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
      const box = document.createElement("div");
      box.className = "acts";
      box.append(open, pdn, del);
      acts.appendChild(box);
      tr.appendChild(acts);
      body.appendChild(tr);
    }
  } catch (e) { showError(e); }
}

async function importPdn(text) {
  try {
    const res = await api("POST", "/api/pdn/import", { pdn: text });
    toast(t("imported", { n: res.ids.length }));
    announce(t("imported", { n: res.ids.length }));
    $("pdn-text").value = "";
    await renderGames();
  } catch (e) { toast(e.message, 7000); }
}

// ---------------------------------------------------------------------------------------------
// Modes, controls, keys

let mode = "play";

function setMode(m) {
  mode = m;
  if (m !== "study" && analyzeAbort) analyzeAbort.abort();
  for (const b of document.querySelectorAll(".tabs button")) b.setAttribute("aria-selected", String(b.dataset.mode === m));
  $("panel-play").hidden = m !== "play";
  $("panel-study").hidden = m !== "study";
  $("panel-games").hidden = m !== "games";
  $("evalbar").hidden = m !== "study";
  document.body.classList.toggle("games-mode", m === "games");
  statusNote = "";
  board.hint = null; board.hintMove = null;
  if (m === "study") {
    if (!study.start) study.start = game ? shownFen() : "W:Wa2,b2,c2,d2,e2,f2,g2,h2,a3,b3,c3,d3,e3,f3,g3,h3:Ba6,b6,c6,d6,e6,f6,g6,h6,a7,b7,c7,d7,e7,f7,g7,h7";
    renderPlayers();
    studyShow();
  } else if (m === "games") {
    renderGames();
  } else {
    board.editTool = null;
    renderPlay();
  }
}

function openNewDialog(fromStudy) {
  $("new-from-fen").checked = !!fromStudy;
  $("new-from-fen").parentElement.hidden = !study.start;
  const dlg = $("new-dialog");
  dlg.returnValue = "";
  dlg.showModal();
}

function newGameBody() {
  const opp = document.querySelector('input[name="opp"]:checked').value;
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

function restoreNewDefaults() {
  try {
    const d = JSON.parse(localStorage.getItem("damasi.new") || "null");
    if (!d) return;
    for (const r of document.querySelectorAll('input[name="opp"]')) r.checked = r.value === d.opp;
    $("new-level").value = d.level; $("new-level-out").textContent = d.level;
    $("new-color").value = d.color; $("new-time").value = d.tc;
    $("engine-opts").disabled = d.opp !== "engine";
  } catch (_) { /* defaults stay */ }
}

function wire() {
  for (const b of document.querySelectorAll(".tabs button")) b.addEventListener("click", () => setMode(b.dataset.mode));
  for (const b of document.querySelectorAll(".langs button")) b.addEventListener("click", () => {
    lang = b.dataset.lang;
    localStorage.setItem("damasi.lang", lang);
    applyI18n();
    if (mode === "play") renderPlay(); else if (mode === "study") studyShow(); else renderGames();
  });
  $("btn-new").addEventListener("click", () => openNewDialog(false));
  $("btn-takeback").addEventListener("click", takeBack);
  $("btn-hint").addEventListener("click", hint);
  $("btn-flip").addEventListener("click", () => { board.setFlipped(!board.flipped); renderPlay(); });
  $("btn-draw").addEventListener("click", offerDraw);
  $("btn-resign").addEventListener("click", resign);
  $("notation").addEventListener("change", () => {
    localStorage.setItem("damasi.notation", notation());
    if (mode === "study") studyShow(); else renderPlay();
  });
  $("move-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const text = $("move-input").value.trim();
    if (text) typedMove(text);
  });
  for (const [id, f] of [["nav-first", () => 0], ["nav-prev", (n) => n - 1], ["nav-next", (n) => n + 1], ["nav-last", () => Infinity]]) {
    $(id).addEventListener("click", () => { if (game) browse(f(viewPly === null ? game.plies.length : viewPly)); });
  }
  $("btn-copyfen-play").addEventListener("click", () => copyText(shownFen()));
  $("btn-analyse").addEventListener("click", () => {
    if (!game) return;
    if (study.editing) { study.editing = false; board.editTool = null; $("editor").hidden = true; }
    study.start = shownFen(); study.line = []; study.idx = 0;
    setMode("study");
  });

  $("new-level").addEventListener("input", () => { $("new-level-out").textContent = $("new-level").value; });
  for (const r of document.querySelectorAll('input[name="opp"]')) r.addEventListener("change", () => {
    $("engine-opts").disabled = document.querySelector('input[name="opp"]:checked').value !== "engine";
  });
  $("new-dialog").addEventListener("close", () => {
    if ($("new-dialog").returnValue === "ok") newGame(newGameBody());
  });

  $("st-undo").addEventListener("click", () => { if (study.idx > 0) { study.idx--; studyShow(); } });
  $("st-flip").addEventListener("click", () => { board.setFlipped(!board.flipped); studyShow(); });
  $("st-edit").addEventListener("click", () => { if (study.editing) finishEditor(); else startEditor(); });
  $("st-play").addEventListener("click", () => openNewDialog(true));
  for (const b of document.querySelectorAll(".palette button")) b.addEventListener("click", () => {
    study.tool = b.dataset.tool;
    board.editTool = study.tool;
    for (const o of document.querySelectorAll(".palette button")) o.setAttribute("aria-pressed", String(o === b));
  });
  $("ed-side").addEventListener("change", updateEditorFen);
  $("ed-clear").addEventListener("click", () => { study.edit.pieces = {}; board.pos = study.edit; board.drawPieces(); updateEditorFen(); });
  $("ed-start").addEventListener("click", () => {
    study.edit = parseFen("W:Wa2,b2,c2,d2,e2,f2,g2,h2,a3,b3,c3,d3,e3,f3,g3,h3:Ba6,b6,c6,d6,e6,f6,g6,h6,a7,b7,c7,d7,e7,f7,g7,h7");
    $("ed-side").value = "W";
    board.pos = study.edit; board.drawPieces(); updateEditorFen();
  });
  $("ed-done").addEventListener("click", finishEditor);
  $("fen-form").addEventListener("submit", (e) => { e.preventDefault(); loadFen($("fen-input").value); });
  $("st-copyfen").addEventListener("click", () => copyText($("fen-input").value));

  $("pdn-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const text = $("pdn-text").value;
    if (text.trim()) importPdn(text);
  });
  $("pdn-file").addEventListener("change", async () => {
    const f = $("pdn-file").files[0];
    if (f) { $("pdn-text").value = await f.text(); }
  });

  document.addEventListener("keydown", (e) => {
    const tag = (e.target.tagName || "").toLowerCase();
    if (["input", "textarea", "select"].includes(tag) || e.target === board.el || $("new-dialog").open) return;
    if (mode === "play" && game) {
      const cur = viewPly === null ? game.plies.length : viewPly;
      if (e.key === "ArrowLeft") { browse(cur - 1); e.preventDefault(); }
      else if (e.key === "ArrowRight") { browse(cur + 1); e.preventDefault(); }
      else if (e.key === "Home") { browse(0); e.preventDefault(); }
      else if (e.key === "End") { browse(Infinity); e.preventDefault(); }
    } else if (mode === "study") {
      if (e.key === "ArrowLeft" && study.idx > 0) { study.idx--; studyShow(); e.preventDefault(); }
      else if (e.key === "ArrowRight" && study.idx < study.line.length) { study.idx++; studyShow(); e.preventDefault(); }
    }
    if (e.key === "f" && !e.ctrlKey && !e.metaKey) { board.setFlipped(!board.flipped); if (mode === "study") studyShow(); else renderPlay(); }
    if (e.key === "m" && mode === "play") { $("move-input").focus(); e.preventDefault(); }
  });
}

async function boot() {
  applyI18n();
  board.init();
  wire();
  restoreNewDefaults();
  const n = localStorage.getItem("damasi.notation");
  if (n) $("notation").value = n;
  setInterval(tick, 200);
  const saved = localStorage.getItem("damasi.game");
  try {
    if (saved) await loadGame(Number(saved));
    else throw new Error("no saved game");
    setMode("play");
    maybeEngine();
  } catch (_) {
    await newGame({ white: { kind: "human" }, black: { kind: "engine", level: 3 } });
  }
}

boot();
