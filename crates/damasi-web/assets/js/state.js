// The page's state in one place: every view reads it and changes it, then redraws.

/** The play view's game and what the page is doing with it. */
export const S = {
  /** @type {any} the game as the server last described it */
  game: null,
  gameAt: 0,          // performance.now() when `game` arrived: the clocks count on from there
  /** @type {number|null} null: the live position; else the ply index shown (0 = start) */
  viewPly: null,
  acting: 0,          // the person's requests under way (a move, a take-back, ...)
  actionSeq: 0,       // counts the person's finished requests
  animating: false,   // a move of the followed game is being animated
  offline: false,     // the server cannot be reached: the follower keeps retrying
  statusNote: "",
  mode: "play",       // the view shown: play, study, games (router.js)
  /** @type {{from: string, to: string}|null} a move entered while the engine thinks */
  premove: null,
  booting: true,      // the first view is being opened: its URL replaces the entry
};

/** The study view: a start position and the tree of moves played from it, or the position editor. */
export const study = {
  /** @type {string|null} */ start: null,
  /** @type {import("./tree.js").TreeNode|null} the moves played from `start` (tree.js) */ root: null,
  /** @type {import("./tree.js").TreeNode[]} the nodes from the start to the position shown */ path: [],
  analysing: false,   // the analysis (several lines, deepening) is on
  /** @type {any[]} */ legal: [],
  /** @type {any} */ outcome: null,
  editing: false,
  /** @type {any} */ edit: null,
  tool: "wm",
  seq: 0,
};
