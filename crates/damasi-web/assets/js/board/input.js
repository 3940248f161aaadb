// The board's input: clicks, drags and the keyboard, turned into one of the legal moves.
import { board } from "./render.js";
import { announce, getLang, t } from "../i18n.js";

Object.assign(board, /** @type {ThisType<any>} */ ({
  reject(message) {
    this.el.classList.remove("shake");
    void this.el.offsetWidth;
    this.el.classList.add("shake");
    if (message) { this.note(message); announce(message); }
  },

  select(sq) { this.sel = sq; this.path = []; this.endAt = null; this.drawMarks(); },
  clearSel() {
    const had = this.sel;
    this.sel = null; this.path = []; this.endAt = null;
    if (had && this.pieceEls[had]) this.place(this.pieceEls[had], had);
    this.drawMarks();
  },

  // One click (or a drop, or Enter) on a square.
  activate(sq) {
    if (this.editTool) { if (this.onEdit) this.onEdit(sq); return; }
    if (!this.onMove) { if (this.onPremove) this.premoveClick(sq); return; }
    const movable = this.movableFroms();
    if (this.sel) {
      const cands = this.candidates();
      const nextHits = cands.filter((m) => m.route[this.path.length] === sq);
      if (nextHits.length) {
        this.path.push(sq);
        const done = nextHits.filter((m) => m.route.length === this.path.length);
        if (done.length && done.length === nextHits.length) return this.commit(done[0]);
        // Choosing between routes to one square: the first landing square that tells them
        // apart decides.
        if (this.endAt && nextHits.length === 1) return this.commit(nextHits[0]);
        this.note(t(this.endAt ? "chooseRoute" : "chooseNext"));
        this.drawMarks();
        return;
      }
      const byEnd = cands.filter((m) => m.to === sq);
      if (byEnd.length === 1) return this.commit(byEnd[0]);
      if (byEnd.length > 1) return this.chooseRoute(sq, byEnd);
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

  // Several capture routes end on `sq`: the board walks their common start and then marks the
  // landing squares where they part, for the person to pick one (never a silent guess).
  chooseRoute(sq, routes) {
    this.endAt = sq;
    for (;;) {
      const k = this.path.length;
      const next = new Set(routes.map((m) => m.route[k]));
      if (next.size !== 1 || routes.some((m) => m.route.length <= k + 1)) break;
      this.path.push(routes[0].route[k]);
    }
    this.note(t("chooseRoute"));
    announce(t("chooseRoute"));
    this.drawMarks();
  },

  // While the other side thinks: a piece of the person's colour, then a square, is kept as
  // a premove (played by the view when it is legal once the turn comes).
  premoveClick(sq) {
    const p = this.pos.pieces[sq];
    if (p && p.c === this.premoveColor) { this.sel = sq; this.path = []; this.drawMarks(); return; }
    if (this.sel && sq !== this.sel) {
      const pm = { from: this.sel, to: sq };
      this.sel = null;
      this.onPremove(pm);
      this.drawMarks();
      return;
    }
    this.sel = null;
    this.onPremove(null);
    this.drawMarks();
  },

  commit(m) {
    const fn = this.onMove;
    const dragged = this.dropping;
    this.sel = null; this.path = []; this.endAt = null;
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
      announce(this.pieceLabel(this.cursor) + (isTarget ? (getLang() === "tr" ? ", hedef" : ", target") : ""));
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

}));
