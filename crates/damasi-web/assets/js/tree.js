// The Study's move tree: a start position and the moves played from it, each position with
// any number of continuations. A node's first child is its main continuation, the others are
// variations (alternatives to that first child). The current position is a path: the nodes
// from the root's child down to it (empty at the start).
//
// Pure data and functions (no page, no server): the moves and positions in the nodes come from
// the server (views/study.js), this module only arranges them, writes them as text (for the
// address and for PDN) and reads that text back.

/**
 * @typedef {Object} TreeMove  a move as the server describes it (docs/web-api.md)
 * @property {string} landing
 * @property {string} [captured]
 * @property {string} [from]
 * @property {string} [to]
 * @property {string[]} [route]
 */

/**
 * @typedef {Object} TreeNode
 * @property {TreeMove|null} move  the move that led here (null at the root)
 * @property {string} fen  the position after it
 * @property {TreeNode[]} children  the continuations, the main one first
 * @property {string} [comment]  a comment on the move (from a PDN file's `{...}`)
 */

/** A tree of the position `fen` alone. @param {string} fen @returns {TreeNode} */
export function createTree(fen) { return { move: null, fen, children: [] }; }

/** The continuation of `node` by the move written `landing`, if it is there. @param {TreeNode} node @param {string} landing */
export function childFor(node, landing) { return node.children.find((c) => c.move.landing === landing) || null; }

/**
 * Plays `move` (leading to `fen`) after `node`: the continuation already there for the same
 * move, or a new one, which is a variation when `node` already had a continuation.
 * @param {TreeNode} node @param {TreeMove} move @param {string} fen @returns {TreeNode}
 */
export function addMove(node, move, fen) {
  const there = childFor(node, move.landing);
  if (there) return there;
  const child = { move, fen, children: [] };
  node.children.push(child);
  return child;
}

/** The node a path ends on (the root for an empty path). @param {TreeNode} root @param {TreeNode[]} path */
export function nodeOf(root, path) { return path.length ? path[path.length - 1] : root; }

/** The parent of the path's last node. @param {TreeNode} root @param {TreeNode[]} path */
export function parentOf(root, path) { return path.length > 1 ? path[path.length - 2] : root; }

/** The main continuation of `node`: its first child, that child's first child, and so on. @param {TreeNode} node */
export function mainContinuation(node) {
  const out = [];
  for (let n = node; n.children.length; n = n.children[0]) out.push(n.children[0]);
  return out;
}

/** The path `path`, then the main continuation from its end: the whole line it is on. @param {TreeNode} root @param {TreeNode[]} path */
export function wholeLine(root, path) { return [...path, ...mainContinuation(nodeOf(root, path))]; }

/** The main line from the start. @param {TreeNode} root */
export function mainLine(root) { return mainContinuation(root); }

/** Whether the path is on the main line. @param {TreeNode} root @param {TreeNode[]} path */
export function onMainLine(root, path) { return path.every((n, i) => parentOf(root, path.slice(0, i + 1)).children[0] === n); }

/**
 * The path from the root to `target`, or null when it is not in the tree.
 * @param {TreeNode} root @param {TreeNode} target @returns {TreeNode[]|null}
 */
export function pathTo(root, target) {
  if (root === target) return [];
  for (const c of root.children) {
    const below = pathTo(c, target);
    if (below) return [c, ...below];
  }
  return null;
}

/**
 * The path that follows the moves `landings` from the root as far as the tree has them.
 * @param {TreeNode} root @param {string[]} landings @returns {TreeNode[]}
 */
export function followMoves(root, landings) {
  const path = [];
  let node = root;
  for (const l of landings) {
    const next = childFor(node, l);
    if (!next) break;
    path.push(next);
    node = next;
  }
  return path;
}

/**
 * The path to the sibling `step` places away (-1 the one above, +1 the one below) of the
 * deepest node of `path` that has siblings; the path unchanged when there is none.
 * @param {TreeNode} root @param {TreeNode[]} path @param {number} step @returns {TreeNode[]}
 */
export function siblingPath(root, path, step) {
  for (let i = path.length - 1; i >= 0; i--) {
    const siblings = parentOf(root, path.slice(0, i + 1)).children;
    if (siblings.length < 2) continue;
    const at = siblings.indexOf(path[i]);
    const next = siblings[(at + step + siblings.length) % siblings.length];
    return [...path.slice(0, i), next];
  }
  return path;
}

/**
 * Makes the line the path is on the main line: every node of the path becomes its parent's
 * first continuation (the others keep their order after it).
 * @param {TreeNode} root @param {TreeNode[]} path
 */
export function promoteToMainLine(root, path) {
  path.forEach((n, i) => {
    const siblings = parentOf(root, path.slice(0, i + 1)).children;
    siblings.splice(siblings.indexOf(n), 1);
    siblings.unshift(n);
  });
}

/**
 * Deletes the path's last node and everything after it; returns the path to its parent.
 * @param {TreeNode} root @param {TreeNode[]} path @returns {TreeNode[]}
 */
export function deleteFrom(root, path) {
  if (!path.length) return path;
  const siblings = parentOf(root, path).children;
  siblings.splice(siblings.indexOf(path[path.length - 1]), 1);
  return path.slice(0, -1);
}

/** How many moves the tree holds. @param {TreeNode} node */
export function countMoves(node) { return node.children.reduce((n, c) => n + 1 + countMoves(c), 0); }

// ---------------------------------------------------------------------------------------------
// As text: the moves in landing notation, separated by commas, a variation in parentheses
// right after the move it replaces (as in PDN), a comment in braces after its move:
// "d3-d4,{the centre},e6-e5,(f6-f5,c3-c4),d4-d5".

/** A comment as it can stand in braces: no braces inside, spaces made one. @param {string} c */
export const cleanComment = (c) => c.replace(/[{}]/g, "").replace(/\s+/g, " ").trim();

/** The tree as text (see above). @param {TreeNode} root @returns {string} */
export function treeToText(root) {
  /** @param {TreeNode} n @returns {string[]} */
  const moveTokens = (n) => {
    const c = n.comment ? cleanComment(n.comment) : "";
    return c ? [n.move.landing, "{" + c + "}"] : [n.move.landing];
  };
  /** @param {TreeNode} node @returns {string[]} */
  const tokens = (node) => {
    const out = [];
    for (let n = node; n.children.length; n = n.children[0]) {
      const [main, ...variations] = n.children;
      out.push(...moveTokens(main));
      for (const v of variations) out.push("(" + [...moveTokens(v), ...tokens(v)].join(",") + ")");
    }
    return out;
  };
  const start = root.comment ? cleanComment(root.comment) : "";
  return [...(start ? ["{" + start + "}"] : []), ...tokens(root)].join(",");
}

/**
 * @typedef {Object} MoveSkeleton  a tree read from text, moves not yet checked
 * @property {string} landing  "" at the root
 * @property {MoveSkeleton[]} children
 * @property {string} [comment]
 */

/**
 * Builds a tree as a reader meets comments, variations and moves, in order: the node the next
 * move continues and its parent, and for each open variation the two to go back to when it
 * closes. Throws on unbalanced parentheses.
 */
function skeletonBuilder() {
  /** @type {MoveSkeleton} */
  const root = { landing: "", children: [] };
  let at = root;
  /** @type {MoveSkeleton|null} */
  let parent = null;
  /** @type {{at: MoveSkeleton, parent: MoveSkeleton|null}[]} */
  const open = [];
  return {
    /** A comment on the move just read (or, before any move, on the start). @param {string} text */
    comment(text) {
      const c = cleanComment(text);
      if (c) at.comment = at.comment ? at.comment + " " + c : c;
    },
    /** A variation: an alternative to the last move, so it continues that move's parent. */
    openVariation() {
      if (!parent) throw new Error("a variation before any move");
      open.push({ at, parent });
      at = parent;
      parent = null;
    },
    closeVariation() {
      const o = open.pop();
      if (!o) throw new Error("unbalanced ')'");
      ({ at, parent } = o);
    },
    /** A move after the current one; with `merge`, an equal move already there is followed. @param {string} landing @param {boolean} merge */
    move(landing, merge) {
      let child = merge ? at.children.find((c) => c.landing === landing) : undefined;
      if (!child) { child = { landing, children: [] }; at.children.push(child); }
      parent = at;
      at = child;
    },
    /** The tree read. @returns {MoveSkeleton} */
    finish() {
      if (open.length) throw new Error("unbalanced '('");
      return root;
    },
  };
}

/**
 * Reads a tree written by `treeToText`; throws on unbalanced parentheses or an empty move.
 * @param {string} text @returns {MoveSkeleton}
 */
export function textToTree(text) {
  const tree = skeletonBuilder();
  for (const raw of (text || "").match(/\{[^}]*\}|[(),]|[^(),{]+/g) || []) {
    const tok = raw.trim();
    if (tok === "" || tok === ",") continue;
    if (tok.startsWith("{")) tree.comment(tok.slice(1, -1));
    else if (tok === "(") tree.openVariation();
    else if (tok === ")") tree.closeVariation();
    else if (!/^[a-h][1-8]([-x][a-h][1-8])+$/.test(tok)) throw new Error("not a move: " + tok);
    else tree.move(tok, true);
  }
  return tree.finish();
}

/**
 * Reads PDN movetext (no tags) into a tree, keeping its variations (RAV) and comments (`{..}`
 * and `;` to the end of the line); move numbers, NAGs (`$3`), suffixes (`!?`) and the result are
 * left out. Moves are not checked here. Throws on an unbalanced parenthesis.
 * @param {string} movetext @returns {MoveSkeleton}
 */
export function pdnToTree(movetext) {
  const tree = skeletonBuilder();
  for (const tok of movetext.match(/\{[^}]*\}?|;[^\n]*|[()]|[^\s(){};]+/g) || []) {
    if (tok.startsWith("{")) { tree.comment(tok.replace(/^\{|\}$/g, "")); continue; }
    if (tok.startsWith(";")) { tree.comment(tok.slice(1)); continue; }
    if (tok === "(") { tree.openVariation(); continue; }
    if (tok === ")") { tree.closeVariation(); continue; }
    if (/^(1-0|0-1|1\/2-1\/2|\*|2-0|0-2|1-1|0-0)$/.test(tok) || /^\$\d+$/.test(tok)) continue;
    const word = tok.replace(/^\d+\.+/, "").replace(/[!?]+$/, "").replace(/=K$/i, "");
    if (word) tree.move(word, false);
  }
  return tree.finish();
}

/**
 * The games of a PDN file, each as its tags (text) and movetext: a game ends at its result
 * token (outside comments and variations), or where the next game's tags begin.
 * @param {string} text @returns {{tags: string, movetext: string}[]}
 */
export function splitPdnGames(text) {
  const games = [];
  let cur = { tags: "", movetext: "" }, moved = false, depth = 0;
  const RESULT = /^(1-0|0-1|1\/2-1\/2|\*|2-0|0-2|1-1|0-0)$/;
  const end = () => { if (moved || cur.tags) games.push(cur); cur = { tags: "", movetext: "" }; moved = false; depth = 0; };
  for (const tok of text.match(/\[[^\]\n]*\]|\{[^}]*\}?|;[^\n]*|^%[^\n]*|[()]|[^\s(){};[\]]+|\s+|./gm) || []) {
    if (tok.startsWith("[") && depth === 0) {
      if (moved) end();
      cur.tags += tok + "\n";
      continue;
    }
    if (tok.startsWith("%")) continue;
    cur.movetext += tok;
    if (/^\s+$/.test(tok) || tok.startsWith("{") || tok.startsWith(";")) continue;
    if (tok === "(") depth++;
    else if (tok === ")") depth = Math.max(0, depth - 1);
    if (depth === 0 && RESULT.test(tok)) { moved = true; end(); continue; }
    moved = true;
  }
  if (moved) end();
  return games;
}

/** Whether a tree holds more than one line of moves: a variation or a comment. @param {MoveSkeleton} node @returns {boolean} */
export function hasVariationsOrComments(node) {
  return !!node.comment || node.children.length > 1 || node.children.some(hasVariationsOrComments);
}

/** A tree read from PDN as the text of a study's address (`treeToText`'s format). @param {MoveSkeleton} root */
export function skeletonToText(root) {
  /** @param {MoveSkeleton} n */
  const moveTokens = (n) => (n.comment ? [n.landing, "{" + cleanComment(n.comment) + "}"] : [n.landing]);
  /** @param {MoveSkeleton} node @returns {string[]} */
  const tokens = (node) => {
    const out = [];
    for (let n = node; n.children.length; n = n.children[0]) {
      const [main, ...variations] = n.children;
      out.push(...moveTokens(main));
      for (const v of variations) out.push("(" + [...moveTokens(v), ...tokens(v)].join(",") + ")");
    }
    return out;
  };
  return [...(root.comment ? ["{" + cleanComment(root.comment) + "}"] : []), ...tokens(root)].join(",");
}

// ---------------------------------------------------------------------------------------------
// PDN: the moves with their numbers, variations in parentheses (the PDN standard's RAV).

/**
 * The tree's moves as PDN movetext ("1. d3-d4 e6-e5 (1... f6-f5 2. c3-c4) 2. d4-d5 *").
 * @param {TreeNode} root @param {boolean} blackFirst  whether Black moves first in the start
 * @param {(m: TreeMove) => string} [write]  the move's text (landing notation by default)
 */
export function treeToPdn(root, blackFirst, write = (m) => m.landing) {
  /** @param {TreeNode} n */
  const said = (n) => (n.comment && cleanComment(n.comment) ? " {" + cleanComment(n.comment) + "}" : "");
  const offset = blackFirst ? 1 : 0;
  /** @param {number} ply @param {boolean} forceNumber */
  const numbered = (ply, forceNumber) => {
    const n = Math.floor(ply / 2) + 1;
    if (ply % 2 === 0) return n + ". ";
    return forceNumber ? n + "... " : "";
  };
  /** @param {TreeNode} node @param {number} ply  of the first move after node @param {boolean} first */
  const line = (node, ply, first) => {
    const out = [];
    let force = first;
    for (let n = node; n.children.length; n = n.children[0], ply++) {
      const [main, ...variations] = n.children;
      out.push(numbered(ply, force) + write(main.move) + said(main));
      force = !!main.comment;
      for (const v of variations) {
        out.push("(" + [numbered(ply, true) + write(v.move) + said(v), ...line(v, ply + 1, !!v.comment)].join(" ") + ")");
        force = true;
      }
    }
    return out;
  };
  const start = root.comment ? ["{" + cleanComment(root.comment) + "}"] : [];
  return [...start, ...line(root, offset, true), "*"].join(" ");
}
