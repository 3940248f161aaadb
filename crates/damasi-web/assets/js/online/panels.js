// The game's panels around the board, drawn from the game's state (state.js): players and
// clocks, the status line, the result, the buttons of what the person may do, the moves,
// the chat and the game's description.
import { $, other, titled } from "../util.js";
import { sideName, t } from "../i18n.js";
import { SIDES, cap, clockText, daysHours, isStandard, over, plies, resultSentence, rulesText, running, sideWord, speedName } from "./common.js";
import { session } from "./account.js";
import { clockLeft, firstMoveLeft, flipped, view } from "./state.js";

/** A clock's reading: "4:59", "1:02:00", or tenths under ten seconds. @param {number} ms */
function fmtClock(ms) {
  ms = Math.max(0, ms);
  // A correspondence turn: days and hours.
  const long = daysHours(ms);
  if (long) return long;
  if (ms < 10000) return (ms / 1000).toFixed(1);
  const s = Math.ceil(ms / 1000);
  const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), sec = s % 60;
  const mm = h ? String(m).padStart(2, "0") : String(m);
  return (h ? h + ":" : "") + mm + ":" + String(sec).padStart(2, "0");
}

export function renderClocks() {
  const s = view.state;
  if (!s) return;
  const top = flipped() ? "white" : "black";
  for (const [pos, side] of [["top", top], ["bottom", other(top)]]) {
    const el = $("clock-" + pos);
    const left = clockLeft(side);
    el.textContent = fmtClock(left);
    el.dataset.ms = String(Math.round(left));
    el.dataset.side = side;
    el.classList.toggle("running", running(s) && s.turn === side && (s.ply >= 2 || s.daysPerTurn != null));
    el.classList.toggle("low", running(s) && left < 20000);
    el.setAttribute("aria-label", t("onClockLabel", { side: sideName(side), time: fmtClock(left) }));
  }
  // Before both first moves: the side to move's countdown (the game is aborted at zero).
  const first = firstMoveLeft();
  const box = $("first-move");
  box.hidden = first == null;
  if (first != null) {
    const secs = Math.ceil(first / 1000);
    box.textContent = view.you && s.turn === view.you ? t("onFirstMoveYou", { n: secs }) : t("onFirstMoveSide", { side: sideName(s.turn), n: secs });
    box.dataset.seconds = String(secs);
  }
}

export function renderPlayers() {
  const s = view.state, f = view.full;
  const top = flipped() ? "white" : "black";
  for (const [pos, side] of [["top", top], ["bottom", other(top)]]) {
    const el = $("name-" + pos);
    el.innerHTML = "";
    el.dataset.side = side;
    const dot = document.createElement("span");
    dot.className = "dot " + side;
    dot.setAttribute("aria-hidden", "true");
    el.appendChild(dot);
    const p = f && f[side];
    // A player's name opens their page (in another tab: the game goes on here).
    const name = document.createElement(p ? "a" : "span");
    name.className = "who";
    if (p) {
      name.setAttribute("href", "/@/" + encodeURIComponent(p.name));
      name.setAttribute("target", "_blank");
      name.setAttribute("rel", "noopener");
    }
    name.textContent = p ? p.name : t("onWaitingPlayer");
    // A BOT's title stands before its name, as on lichess.
    if (p && p.title) {
      const title = document.createElement("span");
      title.className = "title";
      title.textContent = p.title;
      el.appendChild(title);
    }
    el.appendChild(name);
    if (p && p.rating != null) {
      const r = document.createElement("span");
      r.className = "rating";
      const d = over(s) && s.ratingDiff ? s.ratingDiff[side] : null;
      r.textContent = `(${p.rating}${p.provisional ? "?" : ""}${d == null ? "" : d > 0 ? " +" + d : d < 0 ? " −" + -d : " ±0"})`;
      el.appendChild(r);
    }
    if (p && p.guest) {
      const g = document.createElement("span");
      g.className = "tag";
      g.textContent = t("onGuestTag");
      el.appendChild(g);
    }
    el.classList.toggle("tomove", running(s) && s.turn === side);
    const gone = !!(running(s) && s.gone && s.gone[side]);
    el.classList.toggle("gone", gone);
    if (gone) {
      const g = document.createElement("span");
      g.className = "tag";
      g.dataset.testid = "gone-" + side;
      g.textContent = t("onLeft");
      el.appendChild(g);
    }
  }
}

export function setStatus(text) { $("status").textContent = text; }

export function statusText() {
  const s = view.state, f = view.full;
  if (!s) return "";
  if (s.status === "created") return view.you ? t("onWaitOther") : t("onWaitsSecond");
  if (running(s)) {
    if (view.pending) return t("onMoveSent");
    // An offer waiting for the person's answer is said first: the buttons may be out of view.
    const opp = view.you ? other(view.you) : null;
    const waiting = opp && s[opp[0] + "draw"] ? " " + t("onDrawOffered")
      : opp && s[opp[0] + "takeback"] ? " " + t("onTakebackAsked") : "";
    if (view.you && s.turn === view.you) {
      const forced = view.legal.length && view.legal.every((m) => m.captures.length > 0);
      return t(forced ? "onYourTurnForced" : "onYourTurn") + waiting;
    }
    const p = f && f[s.turn];
    return (p ? t("onToMoveName", { side: sideName(s.turn), name: p.name }) : t("onToMove", { side: sideName(s.turn) })) + waiting;
  }
  return resultSentence(s);
}

function resultText() {
  const s = view.state, f = view.full;
  const diffs = [];
  for (const side of SIDES) {
    const d = s.ratingDiff && s.ratingDiff[side];
    if (d == null || !f || !f[side]) continue;
    diffs.push(`${titled(f[side].name, f[side].title)} ${d > 0 ? "+" : d < 0 ? "−" : "±"}${Math.abs(d)}`);
  }
  return { head: resultSentence(s), diffs: diffs.join(" · ") };
}

export function renderResult() {
  const s = view.state;
  const box = $("result");
  box.hidden = !over(s);
  if (!over(s)) return;
  const { head, diffs } = resultText();
  box.innerHTML = "";
  const strong = document.createElement("span");
  strong.textContent = head;
  box.appendChild(strong);
  if (diffs) {
    const small = document.createElement("span");
    small.className = "diffs";
    small.dataset.testid = "rating-diffs";
    small.textContent = t("onRatingDiffs", { diffs });
    box.appendChild(small);
  }
}

export function renderActions() {
  const s = view.state, f = view.full, you = view.you;
  if (!s) return;
  const playing = running(s) && !!you;
  const n = plies(s).length;
  const opp = you ? other(you) : null;
  const offer = (kind, side) => !!s[(side === "white" ? "w" : "b") + kind];
  // Take the seat / share the link.
  const open = s.status === "created";
  const free = f && SIDES.filter((side) => !f[side]);
  $("seat-box").hidden = !(open && !you && free && free.length);
  if (open && !you && f && f.rated && !(session.me && !session.me.guest)) $("seat-text").textContent = t("onSeatRated");
  else if (open && !you) $("seat-text").textContent = t("onSeatWaits") + (session.me ? "" : " " + t("onSeatGuest"));
  $("share-box").hidden = !(open && you);
  if (open && you) $("share-url").value = location.origin + "/online/" + view.id;
  // In play.
  $("btn-abort").hidden = !(playing && n < 2);
  $("btn-game-report").hidden = !(you && f && f[opp] && session.me && !session.me.guest);
  $("btn-resign").hidden = !(playing && n >= 2);
  $("btn-draw").hidden = !playing;
  $("btn-takeback").hidden = !playing;
  if (playing) {
    const mine = offer("draw", you);
    $("btn-draw").disabled = mine;
    $("btn-draw").textContent = t(mine ? "onDrawOfferedBtn" : "offerDraw");
    const myTb = offer("takeback", you);
    const myMoves = you === "white" ? Math.ceil(n / 2) : Math.floor(n / 2);
    $("btn-takeback").disabled = myTb || myMoves === 0;
    $("btn-takeback").textContent = t(myTb ? "onTakebackProposed" : "onProposeTakeback");
  }
  $("resign-ask").hidden = !(playing && view.resignAsk);
  $("draw-ask").hidden = !(playing && offer("draw", opp));
  $("takeback-ask").hidden = !(playing && offer("takeback", opp));
  // The opponent left.
  // (Not in a correspondence game: nobody stays connected for days, and no claim is allowed.)
  const gone = playing && s.gone && s.gone[opp] && s.daysPerTurn == null;
  $("claim-box").hidden = !gone;
  if (gone) {
    const wait = view.claimAt ? Math.ceil((view.claimAt - performance.now()) / 1000) : 0;
    $("claim-text").textContent = wait > 0
      ? t("onClaimWait", { n: wait })
      : t("onClaimNow");
    $("btn-claim-win").disabled = wait > 0;
    $("btn-claim-draw").disabled = wait > 0;
  }
  // After the game.
  const seated = f && f.white && f.black;
  // A tournament's game has no rematch: the tournament pairs the next one; its page is linked.
  const event = f && (f.swissId ? "/swiss/" + f.swissId : f.tournamentId ? "/tournament/" + f.tournamentId : "");
  $("event-link").hidden = !event;
  if (event) /** @type {HTMLAnchorElement} */ ($("event-link")).href = event;
  const canRematch = over(s) && !!you && seated && !s.rematch && !event;
  $("btn-rematch").hidden = !canRematch;
  if (canRematch) {
    const mine = offer("rematch", you), theirs = offer("rematch", opp);
    $("btn-rematch").disabled = mine;
    $("btn-rematch").textContent = t(mine ? "onRematchOffered" : theirs ? "onAcceptRematch" : "onRematch");
  }
  const rematchNote = over(s) && (s.rematch || (you && offer("rematch", opp)) || (!you && (s.wrematch || s.brematch)));
  $("rematch-box").hidden = !rematchNote;
  if (rematchNote) {
    $("rematch-text").textContent = s.rematch
      ? t(you ? "onRematchStarts" : "onRematchPlayers")
      : t(you ? "onRematchWanted" : "onRematchAsked");
    $("rematch-link").hidden = !s.rematch;
    if (s.rematch) $("rematch-link").href = "/online/" + s.rematch;
  }
}

export function renderMoves() {
  const list = $("movelist");
  const moves = plies(view.state);
  list.innerHTML = "";
  for (let i = 0; i < moves.length; i += 2) {
    const li = document.createElement("li");
    const num = document.createElement("span");
    num.className = "num";
    num.textContent = i / 2 + 1 + ".";
    li.appendChild(num);
    for (const j of [i, i + 1]) {
      const span = document.createElement("span");
      span.className = "mv";
      if (j < moves.length) {
        span.textContent = moves[j];
        span.dataset.ply = String(j + 1);
        const shown = view.browse == null ? moves.length : view.browse;
        if (j === shown - 1) span.classList.add("cur");
        if (over(view.state)) {
          // A finished game is replayed move by move: click a move, or use the arrow keys.
          span.tabIndex = 0;
          span.setAttribute("role", "button");
        }
      }
      li.appendChild(span);
    }
    list.appendChild(li);
  }
  if (over(view.state)) {
    const li = document.createElement("li");
    const r = document.createElement("span");
    r.className = "result";
    const code = view.state.outcome || "";
    const who = code.split(":")[0];
    r.textContent = who === "white" ? "1–0" : who === "black" ? "0–1" : who === "draw" ? "½–½" : code === "aborted" ? t("onAbortedShort") : code;
    r.title = resultSentence(view.state);
    li.appendChild(r);
    list.appendChild(li);
  }
  list.scrollTop = list.scrollHeight;
}

export function chatKey() { return "damasi.online.hideChat." + (session.me ? session.me.name : ""); }
/** Whether the players' chat is hidden: as the person chose, else hidden for a guest (chat is
 * off by default for guests, who can turn it on). */
export function chatHidden() {
  const chosen = localStorage.getItem(chatKey());
  return chosen === null ? !!(session.me && session.me.guest) : chosen === "1";
}
export function renderChatHidden() { $("chat-body").hidden = chatHidden(); }

export function renderChat() {
  const ul = $("chat-lines");
  ul.innerHTML = "";
  for (const l of view.chat) {
    const li = document.createElement("li");
    const who = document.createElement("span");
    who.className = "who";
    who.textContent = l.username + ":";
    li.append(who, l.text);
    ul.appendChild(li);
  }
  ul.scrollTop = ul.scrollHeight;
  const f = view.full;
  const canTalk = !!(f && f.chatEnabled && view.you);
  $("chat-form").hidden = !canTalk;
  $("chat").hidden = !(f && f.chatEnabled);
  // The players' chat is theirs alone: a spectator is told so rather than shown an empty box.
  const spectator = !!(f && f.chatEnabled && !view.you);
  $("chat-private").hidden = !spectator;
  ul.hidden = spectator;
}

export function renderInfo() {
  const f = view.full;
  if (!f) return;
  $("game-info").textContent = t("onInfo", { mode: t(f.rated ? "onRated" : "onCasual"), speed: cap(speedName(f.speed)), clock: clockText(f.clock, f.daysPerTurn) }) +
    (isStandard(f.variant) ? "" : " · " + rulesText(f.variant)) +
    " · " + (view.you ? t("onYouPlay", { side: sideWord(view.you) }) : t("onWatching"));
}

export function renderTitle() {
  const s = view.state;
  const mine = running(s) && view.you && s.turn === view.you;
  document.title = (mine ? t("onTitleYourTurn") + " · " : "") + t("onTitleGame", { id: view.id });
}

/** After a game: replay it here, analyse it in Study, review it with the engine, download it. */
export function renderAfterGame() {
  const s = view.state;
  const done = over(s) && Array.isArray(s.fens);
  $("after-game").hidden = !done;
  $("browse-nav").hidden = !done;
  if (!done) return;
  const moves = plies(s);
  const q = new URLSearchParams({ fen: s.fens[0], moves: moves.join(",") });
  $("link-analyse").setAttribute("href", "/#/study?" + q.toString());
  $("link-pdn").setAttribute("href", `/api/online/games/${encodeURIComponent(view.id)}/pdn`);
  // A new opponent at the same control: its pool when it is one, else the lobby.
  const f = view.full;
  const control = f && f.clock ? clockText(f.clock) : "";
  const pooled = ["3+2", "5+3", "10+5", "15+10", "45+0"].includes(control);
  $("link-new-opponent").setAttribute("href", pooled ? "/online?pool=" + encodeURIComponent(control) : "/online");
}
