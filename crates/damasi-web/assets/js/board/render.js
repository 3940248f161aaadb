// The board's drawing: squares, pieces, the marks of a move being entered and the routes of
// captures. The board knows no rules: the legal moves (with their routes) come from the server.
import { FILES, $ } from "../util.js";
import { getLang, sideName } from "../i18n.js";
import { parseFen, squareAt, squareCoords } from "../position.js";
import { clearUserShapes, drawShapes, enableUserShapes } from "./shapes.js";

export const board = /** @type {any} */ ({
  // Shows a short message about the person's input (a view sets it to its status line).
  note: (_text) => {},
  el: null, flipped: false, pos: { side: "W", pieces: {} }, pieceEls: {},
  moves: [], onMove: null, sel: null, path: [], last: null, hint: null, cursor: "d4",
  endAt: null,        // the square several capture routes end on, while the person picks one
  onPremove: null, premoveColor: null, premove: null,
  onDrawn: () => {},
  onMoved: (_m) => {},  // after a move is shown (its sound, the DAMA notice)  // after the pieces are drawn (the material beside the board)
  editTool: null, onEdit: null, drag: null,

  init() {
    this.el = $("board");
    this.el.addEventListener("pointerdown", (e) => this.pointerDown(e));
    this.el.addEventListener("keydown", (e) => this.keyDown(e));
    this.el.addEventListener("focus", () => this.drawMarks());
    this.el.addEventListener("blur", () => this.drawMarks());
    enableUserShapes(this.el);
    this.build();
  },

  coords(sq) { return squareCoords(sq, this.flipped); },
  squareAt(col, row) { return squareAt(col, row, this.flipped); },

  build() {
    this.el.innerHTML = "";
    this.el.dataset.flipped = String(this.flipped);
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
    drawShapes(this.el);
    this.pieceEls = {};
    this.drawPieces();
  },

  sqEl(sq) { return this.el.querySelector(`.sq[data-sq="${sq}"]`); },

  setFlipped(f) { this.flipped = f; this.build(); },

  set(fen, opts = {}) {
    // The person's arrows and circles belong to the position they were drawn on.
    if (fen !== this.fen) clearUserShapes(this.el);
    this.fen = fen;
    // `opts.pos`: a position the page worked out itself (the online page's move not yet
    // confirmed), shown under the key `fen`.
    this.pos = opts.pos || parseFen(fen);
    this.moves = opts.moves || [];
    this.onMove = opts.onMove || null;
    this.last = opts.last || null;
    this.onPremove = opts.onPremove || null;
    this.premoveColor = opts.premoveColor || null;
    this.premove = opts.premove || null;
    this.sel = null; this.path = []; this.endAt = null;
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
    this.onDrawn();
  },

  pieceLabel(sq) {
    const p = this.pos.pieces[sq];
    if (!p) return sq;
    return `${sq}, ${sideName(p.c === "w" ? "white" : "black")} ${p.k ? (getLang() === "tr" ? "dama" : "king") : (getLang() === "tr" ? "taş" : "man")}`;
  },

  movableFroms() { return new Set(this.moves.map((m) => m.from)); },

  candidates() {
    if (!this.sel) return [];
    return this.moves.filter((m) => m.from === this.sel && (!this.endAt || m.to === this.endAt)
      && this.path.every((s, i) => m.route[i] === s));
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
      d.classList.toggle("routeend", sq === this.endAt);
      this.el.classList.toggle("choosing", !!this.endAt);
      d.classList.toggle("premove", !!this.premove && (sq === this.premove.from || sq === this.premove.to));
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

});
