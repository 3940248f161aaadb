// A move played on the board step by step, one landing square after the other.
import { board } from "./render.js";
import { sleep, stepMs } from "../util.js";
import { parseFen } from "../position.js";

Object.assign(board, /** @type {ThisType<any>} */ ({
  // Plays `m` on the shown position with a step for each landing square (at once after a
  // drag). With `nextFen` the board then shows that position; without, it stays as moved
  // until the caller sets the next position.
  async animate(m, nextFen, instant = false) {
    this.sel = null; this.path = []; this.endAt = null; this.hint = null; this.hintMove = null;
    this.drawMarks();
    const el = this.pieceEls[m.from];
    const steps = instant ? 0 : stepMs();
    if (el) {
      el.style.zIndex = 15;
      if (!steps) el.style.transition = "none";
      else el.style.transitionDuration = Math.round(steps * 0.9) + "ms";
      for (let i = 0; i < m.route.length; i++) {
        this.place(el, m.route[i]);
        const victim = m.captures[i];
        if (steps) await sleep(steps);
        if (victim && this.pieceEls[victim]) this.pieceEls[victim].classList.add("gone");
      }
      if (steps) await sleep(60);
    }
    this.onMoved(m);
    if (nextFen) {
      this.pos = parseFen(nextFen);
      this.drawPieces();
    }
  },
}));
