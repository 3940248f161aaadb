// The Study's move tree (assets/js/tree.js), alone: it is plain data and functions, so node
// imports the page's own module (no browser, no server).
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  addMove, createTree, deleteFrom, followMoves, mainLine, onMainLine, pathTo, promoteToMainLine,
  siblingPath, textToTree, treeToPdn, treeToText, wholeLine, countMoves,
  pdnToTree, hasVariationsOrComments, skeletonToText, splitPdnGames,
} from "../../assets/js/tree.js";

const move = (landing) => ({ landing, captured: landing.replace(/x/g, ":") });

// 1. d3-d4 e6-e5 (1... f6-f5 2. c3-c4) 2. c3-c4 (2. a3-a4) f6-f5, and 1. b3-b4 as an alternative first move.
function sample() {
  const root = createTree("W:start");
  const d4 = addMove(root, move("d3-d4"), "fen1");
  const e5 = addMove(d4, move("e6-e5"), "fen2");
  const c4 = addMove(e5, move("c3-c4"), "fen3");
  const f5 = addMove(c4, move("f6-f5"), "fen4");
  const a4 = addMove(e5, move("a3-a4"), "fen3b");
  const f5b = addMove(d4, move("f6-f5"), "fen2b");
  const c4b = addMove(f5b, move("c3-c4"), "fen3c");
  const b4 = addMove(root, move("b3-b4"), "fen1b");
  return { root, d4, e5, c4, f5, a4, f5b, c4b, b4 };
}

test("a move already there is followed, a new one becomes a variation", () => {
  const { root, d4, e5 } = sample();
  assert.equal(addMove(d4, move("e6-e5"), "other"), e5);
  assert.equal(d4.children.length, 2);
  assert.deepEqual(mainLine(root).map((n) => n.move.landing), ["d3-d4", "e6-e5", "c3-c4", "f6-f5"]);
  assert.equal(countMoves(root), 8);
});

test("paths: to a node, along moves, whole line, main line or not", () => {
  const { root, d4, e5, a4, c4, f5 } = sample();
  assert.deepEqual(pathTo(root, a4), [d4, e5, a4]);
  assert.deepEqual(followMoves(root, ["d3-d4", "e6-e5", "a3-a4", "h3-h4"]), [d4, e5, a4]);
  assert.deepEqual(wholeLine(root, [d4]), [d4, e5, c4, f5]);
  assert.equal(onMainLine(root, [d4, e5, c4]), true);
  assert.equal(onMainLine(root, [d4, e5, a4]), false);
});

test("up and down go to the alternatives of the deepest move that has some", () => {
  const { root, d4, e5, c4, f5, a4, b4 } = sample();
  assert.deepEqual(siblingPath(root, [d4, e5, c4, f5], 1), [d4, e5, a4]);
  assert.deepEqual(siblingPath(root, [d4, e5, a4], 1), [d4, e5, c4]);
  assert.deepEqual(siblingPath(root, [d4], -1), [b4]);
  assert.deepEqual(siblingPath(root, [], 1), []);
});

test("promote a variation to the main line, delete from a move", () => {
  const { root, d4, f5b, c4b } = sample();
  promoteToMainLine(root, [d4, f5b, c4b]);
  assert.deepEqual(mainLine(root).map((n) => n.move.landing), ["d3-d4", "f6-f5", "c3-c4"]);
  assert.equal(d4.children[1].move.landing, "e6-e5", "the old main line is now the first variation");
  assert.deepEqual(deleteFrom(root, [d4, f5b]), [d4]);
  assert.deepEqual(d4.children.map((n) => n.move.landing), ["e6-e5"]);
  assert.deepEqual(deleteFrom(root, []), []);
});

test("as text for the address, and read back", () => {
  const { root } = sample();
  const text = treeToText(root);
  assert.equal(text, "d3-d4,(b3-b4),e6-e5,(f6-f5,c3-c4),c3-c4,(a3-a4),f6-f5");
  const back = textToTree(text);
  const again = (n) => ({ l: n.landing, c: n.children.map(again) });
  const fromTree = (n) => ({ l: n.move ? n.move.landing : "", c: n.children.map(fromTree) });
  assert.deepEqual(again(back), fromTree(root));
  assert.equal(treeToText(createTree("x")), "");
  assert.deepEqual(textToTree("").children, []);
  for (const bad of ["(d3-d4)", "d3-d4,(e6-e5", "d3-d4,e6-e5)", "d3-d4,hello"]) {
    assert.throws(() => textToTree(bad), undefined, bad);
  }
});

test("as PDN, with variations in parentheses", () => {
  const { root } = sample();
  assert.equal(treeToPdn(root, false),
    "1. d3-d4 (1. b3-b4) 1... e6-e5 (1... f6-f5 2. c3-c4) 2. c3-c4 (2. a3-a4) 2... f6-f5 *");
  // Black first: the first move is numbered 1...; another notation through `write`.
  const r = createTree("B:x");
  addMove(addMove(r, move("a6-a5"), "1"), move("b3xb5"), "2");
  assert.equal(treeToPdn(r, true, (m) => m.captured), "1... a6-a5 2. b3:b5 *");
});

// Issue #33 item 8: a PDN file's variations and comments, kept in the study's tree.
test("PDN movetext is read with its variations and comments; the text and PDN keep them", () => {
  const pdn = `{Opening} 1. d3-d4! {the centre} e6-e5 (1... f6-f5 $1 2. c3-c4 ; a quiet line
  ) 2. c3-c4?! f6-f5 0-1`;
  const t = pdnToTree(pdn);
  assert.ok(hasVariationsOrComments(t));
  assert.equal(t.comment, "Opening");
  const [d4] = t.children;
  assert.equal(d4.landing, "d3-d4");
  assert.equal(d4.comment, "the centre");
  assert.deepEqual(d4.children.map((c) => c.landing), ["e6-e5", "f6-f5"]);
  assert.equal(d4.children[1].children[0].comment, "a quiet line");
  const text = skeletonToText(t);
  assert.equal(text, "{Opening},d3-d4,{the centre},e6-e5,(f6-f5,c3-c4,{a quiet line}),c3-c4,f6-f5");
  assert.deepEqual(textToTree(text), t);
  assert.ok(!hasVariationsOrComments(pdnToTree("1. d3-d4 e6-e5 2. c3-c4 *")));
  assert.throws(() => pdnToTree("1. d3-d4 (e6-e5"), /unbalanced/);
  // A tree of checked moves with comments: its address text and its PDN.
  const root = createTree("W:start");
  root.comment = "Opening";
  const a = addMove(root, move("d3-d4"), "f1");
  a.comment = "the {centre}";
  addMove(a, move("e6-e5"), "f2");
  addMove(a, move("f6-f5"), "f2b");
  assert.equal(treeToText(root), "{Opening},d3-d4,{the centre},e6-e5,(f6-f5)");
  assert.equal(treeToPdn(root, false), "{Opening} 1. d3-d4 {the centre} 1... e6-e5 (1... f6-f5) *");
});

test("a PDN file is cut into its games at their results and tags", () => {
  const games = splitPdnGames(`[Event "a"]\n[White "x"]\n\n1. d3-d4 {a [b] c} e6-e5 (1... f6-f5 1-0) 1-0\n\n1. c3-c4 *\n[Event "c"]\n1. a3-a4`);
  assert.equal(games.length, 3);
  assert.match(games[0].tags, /Event "a"/);
  assert.match(games[0].movetext, /\(1\.\.\. f6-f5 1-0\) 1-0/);
  assert.equal(games[1].tags, "");
  assert.match(games[1].movetext, /c3-c4 \*/);
  assert.match(games[2].tags, /Event "c"/);
});
