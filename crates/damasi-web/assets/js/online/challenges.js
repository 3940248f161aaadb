// Direct challenges on every online page (#44 item 4): the account's event stream tells of
// each challenge to the person (and, when the stream opens, of those still waiting); the
// header shows how many wait, the lobby lists them with Accept and Decline, and a challenge
// withdrawn, declined or taken leaves the list. The challenger's game page says a decline
// and its reason.
import { $, titled } from "../util.js";
import { api, showError } from "../api.js";
import { hasText, t } from "../i18n.js";
import { clockText, go, speedName, toast } from "./common.js";
import { session } from "./account.js";
import { events, startEvents } from "./events.js";

/** @type {Map<string, any>} the challenges to the person waiting: id -> lichess's challenge */
const waiting = new Map();

/** A challenge's words: who, the time control, rated or not. @param {any} c */
function describe(c) {
  const tc = c.timeControl || {};
  const clock = tc.type === "correspondence" ? clockText(null, tc.daysPerTurn) : tc.show || "";
  return t("onChallengeFrom", {
    name: c.challenger ? titled(c.challenger.name, c.challenger.title) : "?",
    what: `${clock} ${speedName(c.speed)} · ${t(c.rated ? "onRatedWord" : "onCasualWord")}`,
  });
}

/** The header's count, and the lobby's list when the lobby is shown. */
function render() {
  const badge = $("challenge-badge");
  badge.hidden = waiting.size === 0;
  badge.textContent = t("onChallengesWaiting", { n: waiting.size });
  const box = document.getElementById("challenges-box");
  if (!box) return;
  box.hidden = waiting.size === 0;
  const ul = $("challenges");
  ul.innerHTML = "";
  for (const c of waiting.values()) {
    const li = document.createElement("li");
    li.dataset.testid = "challenge-" + c.id;
    const text = document.createElement("span");
    text.textContent = describe(c);
    const yes = document.createElement("button");
    yes.type = "button";
    yes.className = "primary";
    yes.textContent = t("accept");
    yes.dataset.testid = "challenge-accept";
    yes.addEventListener("click", async () => {
      try {
        await api("POST", `/api/challenge/${encodeURIComponent(c.id)}/accept`, {});
        go(c.id);
      } catch (e) { showError(e); waiting.delete(c.id); render(); }
    });
    const no = document.createElement("button");
    no.type = "button";
    no.textContent = t("decline");
    no.dataset.testid = "challenge-decline";
    no.addEventListener("click", async () => {
      try { await api("POST", `/api/challenge/${encodeURIComponent(c.id)}/decline`, { reason: "generic" }); } catch (e) { showError(e); }
      waiting.delete(c.id);
      render();
    });
    li.append(text, yes, no);
    ul.appendChild(li);
  }
}

/** @param {any} ev */
function onEvent(ev) {
  const me = session.me;
  if (!me) return;
  const c = ev.challenge;
  if (ev.type === "challenge" && c && c.destUser && c.destUser.name === me.name && c.status === "created") {
    const fresh = !waiting.has(c.id);
    waiting.set(c.id, c);
    render();
    if (fresh && events.burstDone) toast(describe(c));
  } else if ((ev.type === "challengeCanceled" || ev.type === "challengeDeclined") && c) {
    if (waiting.delete(c.id)) render();
    // The challenger, on the game's page: who said no, and why.
    const mine = c.challenger && c.challenger.name === me.name;
    if (ev.type === "challengeDeclined" && mine && location.pathname === "/online/" + c.id) {
      const reason = ev.declineReason || "generic";
      const why = hasText("decline:" + reason) ? t("decline:" + reason) : reason;
      toast(t("onChallengeDeclined", { name: (c.destUser && c.destUser.name) || "?", reason: why }));
    }
  } else if (ev.type === "gameStart" && ev.game && waiting.delete(ev.game.id || ev.game.gameId)) {
    render();
  }
}

/** Follows the person's challenges on this page (again after a log-in or log-out). */
export function startChallenges() {
  if (!events.listeners.includes(onEvent)) events.listeners.push(onEvent);
  waiting.clear();
  render();
  if (session.me) startEvents();
}

/** Draws the challenges again (in another language). */
export function redrawChallenges() { render(); }
