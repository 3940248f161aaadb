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
// right after the move it replaces (as in PDN): "d3-d4,e6-e5,(f6-f5,c3-c4),d4-d5".

/** The tree as text (see above). @param {TreeNode} root @returns {string} */
export function treeToText(root) {
  /** @param {TreeNode} node @returns {string[]} */
  const tokens = (node) => {
    const out = [];
    for (let n = node; n.children.length; n = n.children[0]) {
      const [main, ...variations] = n.children;
      out.push(main.move.landing);
      for (const v of variations) out.push("(" + [v.move.landing, ...tokens(v)].join(",") + ")");
    }
    return out;
  };
  return tokens(root).join(",");
}

/**
 * @typedef {Object} MoveSkeleton  a tree read from text, moves not yet checked
 * @property {string} landing  "" at the root
 * @property {MoveSkeleton[]} children
 */

/**
 * Reads a tree written by `treeToText`; throws on unbalanced parentheses or an empty move.
 * @param {string} text @returns {MoveSkeleton}
 */
export function textToTree(text) {
  /** @type {MoveSkeleton} */
  const root = { landing: "", children: [] };
  // The node the next move continues and its parent; for each open variation, the two to
  // go back to when it closes.
  let at = root;
  /** @type {MoveSkeleton} */
  let parent = null;
  /** @type {{at: MoveSkeleton, parent: MoveSkeleton}[]} */
  const open = [];
  for (const raw of (text || "").split(/([(),])/)) {
    const tok = raw.trim();
    if (tok === "" || tok === ",") continue;
    if (tok === "(") {
      // A variation: an alternative to the last move, so it continues that move's parent.
      if (!parent) throw new Error("a variation before any move");
      open.push({ at, parent });
      at = parent;
      parent = null;
      continue;
    }
    if (tok === ")") {
      const o = open.pop();
      if (!o) throw new Error("unbalanced ')'");
      at = o.at;
      parent = o.parent;
      continue;
    }
    if (!/^[a-h][1-8]([-x][a-h][1-8])+$/.test(tok)) throw new Error("not a move: " + tok);
    let child = at.children.find((c) => c.landing === tok);
    if (!child) { child = { landing: tok, children: [] }; at.children.push(child); }
    parent = at;
    at = child;
  }
  if (open.length) throw new Error("unbalanced '('");
  return root;
}

// ---------------------------------------------------------------------------------------------
// PDN: the moves with their numbers, variations in parentheses (the PDN standard's RAV).

/**
 * The tree's moves as PDN movetext ("1. d3-d4 e6-e5 (1... f6-f5 2. c3-c4) 2. d4-d5 *").
 * @param {TreeNode} root @param {boolean} blackFirst  whether Black moves first in the start
 * @param {(m: TreeMove) => string} [write]  the move's text (landing notation by default)
 */
export function treeToPdn(root, blackFirst, write = (m) => m.landing) {
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
      out.push(numbered(ply, force) + write(main.move));
      force = false;
      for (const v of variations) {
        out.push("(" + [numbered(ply, true) + write(v.move), ...line(v, ply + 1, false)].join(" ") + ")");
        force = true;
      }
    }
    return out;
  };
  return [...line(root, offset, true), "*"].join(" ");
}
