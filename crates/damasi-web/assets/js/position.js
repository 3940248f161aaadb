// Positions, for display only: a FEN lists where the pieces stand (the rules are the server's).
import { FILES } from "./util.js";

export const START_FEN = "W:Wa2,b2,c2,d2,e2,f2,g2,h2,a3,b3,c3,d3,e3,f3,g3,h3:Ba6,b6,c6,d6,e6,f6,g6,h6,a7,b7,c7,d7,e7,f7,g7,h7";

export function parseFen(fen) {
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

export function fenOf(pieces, side) {
  const list = (c) => Object.keys(pieces).filter((s) => pieces[s].c === c)
    .sort((a, b) => sqIndex(a) - sqIndex(b))
    .map((s) => (pieces[s].k ? "K" : "") + s).join(",");
  return `${side}:W${list("w")}:B${list("b")}`;
}
export function sqIndex(s) { return (Number(s[1]) - 1) * 8 + FILES.indexOf(s[0]); }

// Where a square is drawn: its column and row from the top left, the board turned round or
// not; and the square at a column and row. (The main board and the online page's board.)
/** @param {string} sq @param {boolean} flipped */
export function squareCoords(sq, flipped) {
  const f = FILES.indexOf(sq[0]), r = Number(sq[1]) - 1;
  return flipped ? { col: 7 - f, row: r } : { col: f, row: 7 - r };
}
/** @param {number} col @param {number} row @param {boolean} flipped */
export function squareAt(col, row, flipped) {
  const f = flipped ? 7 - col : col, r = flipped ? row : 7 - row;
  return FILES[f] + (r + 1);
}
