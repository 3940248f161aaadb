// The online game's state in one place: what the server last sent, what the person is doing
// with it, and the socket. The modules of the game read and change it, then redraw (game.js).
import { SIDES, running } from "./common.js";
import { session } from "./account.js";
import { settings } from "../settings.js";

export const view = {
  /** @type {string|null} */ id: null,
  /** @type {any} the last gameFull (players, control, chat) */ full: null,
  /** @type {any} the last gameState */ state: null,
  stateAt: 0,        // performance.now() when `state` arrived: the clocks count on from there
  heardAt: 0,        // performance.now() of the socket's last message (a long silence asks for the state)
  /** @type {string|null} "white", "black" or null (spectator) */ you: null,
  flip: false,       // the person turned the board round
  /** @type {any[]} legal moves of the shown position when it is the person's turn */ legal: [],
  /** @type {number|null} the ply shown while replaying a finished game (null: the end) */ browse: null,
  legalFen: "",
  /** @type {{side: string, pieces: Record<string, {c: string, k: boolean}>}|null} the position on the board */ shown: null,
  /** @type {any} a move sent and not yet confirmed */ pending: null,
  /** @type {{from: string, to: string}|null} a move entered while the opponent thinks */ premove: null,
  lowWarned: "",     // the game and side the low-time tone was played for
  animating: false,  // a move is being played on the board step by step
  /** @type {number|null} performance.now() from which a claim is allowed (opponent gone) */ claimAt: null,
  /** @type {WebSocket|null} */ ws: null,
  wsOpen: false,
  retry: 0,
  /** @type {any} */ retryTimer: null,
  connects: 0,       // sockets that got the server's first message (shown in data-connects)
  /** @type {{username: string, text: string}[]} */ chat: [],
  resignAsk: false,
  followed: false,   // went on to the rematch already
};

/** The side the signed-in person plays in the game `full`, or null. @param {any} full */
export function seatedAs(full) {
  const me = session.me;
  if (!me || !full) return null;
  for (const side of SIDES) if (full[side] && full[side].id === me.id) return side;
  return null;
}

/** Whether the board is drawn from Black's side. */
export function flipped() { return (view.you === "black") !== view.flip; }

/** Whether the person may move now (their turn, nothing sent and unconfirmed). */
export function myTurn() {
  return running(view.state) && !!view.you && view.state.turn === view.you && !view.pending;
}

/** Whether the person may enter a premove now (the opponent to move, the setting on). */
export function premoveTime() {
  return running(view.state) && !!view.you && view.state.turn !== view.you && !view.pending && settings.premove;
}

/** A side's time left now: the server's reading, less the time since it came for the side to move. @param {string} side */
export function clockLeft(side) {
  const s = view.state;
  if (!s) return 0;
  const base = side === "white" ? s.wtime : s.btime;
  // Neither first move is timed: the clock runs from the second move on (a correspondence
  // turn's days run from the start).
  if (running(s) && s.turn === side && !view.pending && (s.ply >= 2 || s.daysPerTurn != null)) return Math.max(0, base - (performance.now() - view.stateAt));
  return base;
}

/** Time left (ms) for the side to move to make its first move, while it has not; else null. */
export function firstMoveLeft() {
  const s = view.state;
  if (!s || !running(s) || s.firstMoveMs == null || view.pending) return null;
  return Math.max(0, s.firstMoveMs - (performance.now() - view.stateAt));
}
