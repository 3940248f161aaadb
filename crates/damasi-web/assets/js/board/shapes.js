// Arrows and circles drawn over a board, in an SVG layer of their own (above the pieces, never
// catching the pointer). Two sets per board: the shapes a view sets (`setShapes`: the review's
// better move, later the study's engine lines) and the shapes the person draws, as on lichess:
// a right-button drag from one square to another draws an arrow, a right click on a square a
// circle (the same shape again takes it away), and a left click anywhere clears them.
//
// A shape is `{from: "c3", to: "c4", brush: "green"}`; without `to` it is a circle round
// `from`; with `via` (the landing squares of a capture before `to`) the arrow is a polyline
// through them. Brushes: green, red, blue, yellow.
import { squareAt, squareCoords } from "../position.js";

/** @typedef {{from: string, to?: string, via?: string[], brush?: string}} Shape */

const SVG = "http://www.w3.org/2000/svg";
export const BRUSHES = { green: "#15781b", red: "#c33", blue: "#2a5fb4", yellow: "#d8a200" };

/** @type {WeakMap<HTMLElement, {set: Shape[], user: Shape[]}>} */
const layers = new WeakMap();

/** @param {HTMLElement} el */
function layerOf(el) {
  let l = layers.get(el);
  if (!l) { l = { set: [], user: [] }; layers.set(el, l); }
  return l;
}

/** Whether the board `el` is drawn from Black's side (render.js keeps it on the element). @param {HTMLElement} el */
const flippedOf = (el) => el.dataset.flipped === "true";

/** The shapes a view shows on the board `el` (in place of those it set before). @param {HTMLElement} el @param {Shape[]} shapes */
export function setShapes(el, shapes) {
  layerOf(el).set = (shapes || []).filter((s) => s && s.from);
  drawShapes(el);
}

/** The shapes the person drew on `el`. @param {HTMLElement} el */
export function userShapes(el) { return [...layerOf(el).user]; }

/** Takes away the person's shapes. @param {HTMLElement} el */
export function clearUserShapes(el) {
  const l = layerOf(el);
  if (!l.user.length) return;
  l.user = [];
  drawShapes(el);
}

/** Draws both sets again (after the board was rebuilt or turned round). @param {HTMLElement} el */
export function drawShapes(el) {
  let svg = /** @type {SVGSVGElement|null} */ (el.querySelector(":scope > svg.shapes"));
  if (!svg) {
    svg = /** @type {SVGSVGElement} */ (document.createElementNS(SVG, "svg"));
    svg.setAttribute("class", "shapes");
    svg.setAttribute("viewBox", "0 0 8 8");
    svg.setAttribute("aria-hidden", "true");
    el.appendChild(svg);
  }
  svg.innerHTML = "";
  const defs = document.createElementNS(SVG, "defs");
  for (const [name, colour] of Object.entries(BRUSHES)) {
    const m = document.createElementNS(SVG, "marker");
    m.setAttribute("id", "shape-head-" + name);
    for (const [k, v] of Object.entries({ viewBox: "0 0 4 4", refX: "2.05", refY: "2", markerWidth: "4", markerHeight: "4", orient: "auto" })) m.setAttribute(k, v);
    const p = document.createElementNS(SVG, "path");
    p.setAttribute("d", "M0,0 L4,2 L0,4 Z");
    p.setAttribute("fill", colour);
    m.appendChild(p);
    defs.appendChild(m);
  }
  svg.appendChild(defs);
  const l = layerOf(el);
  const flipped = flippedOf(el);
  for (const [shapes, who] of [[l.set, "set"], [l.user, "user"]]) {
    for (const s of /** @type {Shape[]} */ (shapes)) svg.appendChild(shapeEl(s, flipped, /** @type {string} */ (who)));
  }
}

/** @param {Shape} s @param {boolean} flipped @param {string} who */
function shapeEl(s, flipped, who) {
  const brush = s.brush && BRUSHES[s.brush] ? s.brush : "green";
  const colour = BRUSHES[brush];
  const centre = (sq) => { const c = squareCoords(sq, flipped); return [c.col + 0.5, c.row + 0.5]; };
  const data = { "data-from": s.from, "data-brush": brush, "data-by": who };
  let node;
  if (!s.to || s.to === s.from) {
    node = document.createElementNS(SVG, "circle");
    const [x, y] = centre(s.from);
    for (const [k, v] of Object.entries({ cx: x, cy: y, r: 0.44, fill: "none", stroke: colour, "stroke-width": 0.07, opacity: 0.8 })) node.setAttribute(k, String(v));
    node.setAttribute("class", "shape circle");
  } else {
    const pts = [s.from, ...(s.via || []), s.to].map(centre);
    // The last stretch ends short of the square's centre so that the head sits on it.
    const [x1, y1] = pts[pts.length - 2], [x2, y2] = pts[pts.length - 1];
    const len = Math.hypot(x2 - x1, y2 - y1) || 1;
    pts[pts.length - 1] = [x2 - ((x2 - x1) / len) * 0.3, y2 - ((y2 - y1) / len) * 0.3];
    node = document.createElementNS(SVG, "polyline");
    for (const [k, v] of Object.entries({
      points: pts.map(([x, y]) => `${x.toFixed(3)},${y.toFixed(3)}`).join(" "), fill: "none", stroke: colour,
      "stroke-width": 0.15, "stroke-linecap": "round", "stroke-linejoin": "round", opacity: 0.8,
      "marker-end": `url(#shape-head-${brush})`,
    })) node.setAttribute(k, String(v));
    node.setAttribute("class", "shape arrow");
    node.setAttribute("data-to", s.to);
  }
  for (const [k, v] of Object.entries(data)) node.setAttribute(k, v);
  return node;
}

/** The square under a pointer event on the board `el`, or null. @param {HTMLElement} el @param {{clientX: number, clientY: number}} e */
function squareUnder(el, e) {
  const r = el.getBoundingClientRect();
  const border = (r.width - el.clientWidth) / 2;
  const size = el.clientWidth / 8;
  const col = Math.floor((e.clientX - r.left - border) / size), row = Math.floor((e.clientY - r.top - border) / size);
  if (col < 0 || col > 7 || row < 0 || row > 7) return null;
  return squareAt(col, row, flippedOf(el));
}

/**
 * Lets the person draw on the board `el`: right-button drag = arrow, right click = circle,
 * with Shift or Alt for red and blue, both for yellow; a left click clears. @param {HTMLElement} el
 */
export function enableUserShapes(el) {
  el.addEventListener("contextmenu", (e) => e.preventDefault());
  el.addEventListener("pointerdown", (e) => {
    if (e.button === 0) { clearUserShapes(el); return; }
    if (e.button !== 2) return;
    const from = squareUnder(el, e);
    if (!from) return;
    e.preventDefault();
    const brush = e.shiftKey && e.altKey ? "yellow" : e.shiftKey ? "red" : e.altKey ? "blue" : "green";
    const up = (/** @type {PointerEvent} */ ev) => {
      window.removeEventListener("pointerup", up);
      const to = squareUnder(el, ev) || from;
      const l = layerOf(el);
      /** @type {Shape} */
      const shape = to === from ? { from, brush } : { from, to, brush };
      // The same shape again takes it away; another brush on it replaces it.
      const same = l.user.findIndex((s) => s.from === shape.from && (s.to || null) === (shape.to || null));
      if (same >= 0) {
        const had = l.user[same];
        l.user.splice(same, 1);
        if (had.brush !== brush) l.user.push(shape);
      } else l.user.push(shape);
      drawShapes(el);
    };
    window.addEventListener("pointerup", up);
  });
}
