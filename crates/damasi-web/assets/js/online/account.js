// The online page's account box: sign up, log in, guest, ratings, recent games, log out and
// bot tokens. `session.me` is who is signed in; a view sets `session.changed` to follow it.
import { $ } from "../util.js";
import { api, ApiError, showError } from "../api.js";
import { t } from "../i18n.js";
import { act, cap, clockText, copyField, ratingText, speedName, toast } from "./common.js";
import { renderSecurity, wireSecurity } from "./security.js";

export const session = {
  /** @type {any} {id, name, guest, perfs} or null */
  me: null,
  /** What the view shown does when the person logs in or out. */
  changed: () => {},
  /** What the view shown redraws when the account box was drawn. */
  drawn: () => {},
};

export async function loadAccount() {
  try {
    session.me = await api("GET", "/api/account");
  } catch (e) {
    if (e instanceof ApiError && e.status === 401) session.me = null;
    else { showError(e); return; }
  }
  renderAccount();
}

/** Whether the server mails links (GET /api/health's `mail`). */
let mailOn = false;
/** The reset link's secret when the page was opened from one (/account/reset/TOKEN). */
const resetToken = (location.pathname.match(/^\/account\/reset\/([0-9a-f]{1,64})\/?$/) || [])[1] || "";

export function renderAccount() {
  const me = session.me;
  $("acct-reset").hidden = !resetToken;
  if (resetToken) { $("acct-out").hidden = true; $("acct-in").hidden = true; return; }
  $("acct-out").hidden = !!me;
  $("acct-in").hidden = !me;
  $("header-who").textContent = me ? (me.guest ? t("onNameGuest", { name: me.name }) : me.name) : "";
  renderSecurity(me);
  if (!me) { $("token-box").hidden = true; $("link-box").hidden = true; $("mod-notices").hidden = true; $("link-mod").hidden = true; return; }
  $("acct-me").textContent = me.name;
  $("acct-guest").hidden = !me.guest;
  $("btn-token").hidden = me.guest;
  $("btn-link-tg").hidden = me.guest;
  $("btn-unlink-tg").hidden = me.guest;
  $("acct-profile").hidden = me.guest;
  $("acct-profile").href = "/@/" + encodeURIComponent(me.name);
  $("data-box").hidden = me.guest;
  $("data-games").href = "/api/games/user/" + encodeURIComponent(me.name);
  $("email-box").hidden = me.guest;
  $("email-shown").textContent = !me.email ? t("onEmailNone") :
    me.emailConfirmed ? me.email : t("onEmailUnconfirmed", { email: me.email });
  $("email-form").hidden = !mailOn;
  $("email-nomail").hidden = mailOn;
  loadFollowingOnline();
  renderModerationNotices();
  const list = $("acct-ratings");
  list.innerHTML = "";
  const perfs = Object.entries(me.perfs || {});
  if (!perfs.length) {
    const li = document.createElement("li");
    li.className = "muted";
    li.textContent = me.guest ? t("onGuestsCasual") : t("onNoRated");
    list.appendChild(li);
  }
  for (const [speed, p] of perfs) {
    const li = document.createElement("li");
    li.dataset.testid = "rating-" + speed;
    li.dataset.rating = String(p.rating);
    li.title = t("onRatingTitle", { rd: p.rd, kind: t(p.provisional ? "onProvisional" : "onEstablished") });
    li.append(cap(speedName(speed)) + " ");
    const strong = document.createElement("strong");
    strong.textContent = ratingText(p);
    li.appendChild(strong);
    li.append(" " + t(p.games === 1 ? "onOneGame" : "onGames", { n: p.games }));
    list.appendChild(li);
  }
  session.drawn();
}

let followingTimer = 0;
// The followed players who are online now (GET /api/rel/following/online), with links to
// their pages; looked at again every 15 s.
async function loadFollowingOnline() {
  const me = session.me;
  if (!me || me.guest) { $("following-box").hidden = true; return; }
  if (!followingTimer) followingTimer = window.setInterval(() => { if (!document.hidden) loadFollowingOnline(); }, 15000);
  let data;
  try { data = await api("GET", "/api/rel/following/online"); } catch (_) { return; }
  const ul = $("following-online");
  ul.innerHTML = "";
  $("following-box").hidden = !data.users.length;
  for (const u of data.users) {
    const li = document.createElement("li");
    const a = document.createElement("a");
    a.href = "/@/" + encodeURIComponent(u.username);
    a.textContent = u.username;
    li.appendChild(a);
    ul.appendChild(li);
  }
}

// The person's last games (GET /api/user/{name}), on the lobby.
export async function loadRecent() {
  const me = session.me;
  if (!me) return;
  let profile;
  try { profile = await api("GET", "/api/user/" + encodeURIComponent(me.name)); } catch (_) { return; }
  const ul = $("recent");
  ul.innerHTML = "";
  const games = (profile.games || []).slice(0, 10);
  $("recent-box").hidden = games.length === 0;
  for (const g of games) {
    const li = document.createElement("li");
    const a = document.createElement("a");
    a.href = "/online/" + g.id;
    const who = g.outcome ? g.outcome.split(":")[0] : "";
    const result = g.status === "open" ? t("onOpen") : g.status === "playing" ? t("onPlaying") :
      who === "white" ? "1–0" : who === "black" ? "0–1" : who === "draw" ? "½–½" : t("onAbortedShort");
    a.textContent = `${g.white || "?"} – ${g.black || "?"}`;
    const span = document.createElement("span");
    const mine = g.white === me.name ? "white" : "black";
    const diff = g.ratingDiff ? g.ratingDiff[mine] : null;
    span.textContent = `${result} · ${clockText(g.clock)}${g.rated ? " " + t("onRatedWord") : ""}${diff == null ? "" : ` (${diff >= 0 ? "+" : "−"}${Math.abs(diff)})`}`;
    li.append(a, span);
    ul.appendChild(li);
  }
}

function credentials() {
  const name = $("acct-name").value.trim();
  const password = $("acct-password").value;
  if (!name || !password) { toast(t("onNeedCredentials")); return null; }
  return { name, password };
}

/** Shows (or hides) the log-in form's field for the second factor's code. @param {boolean} shown */
function showCodeField(shown) {
  $("acct-code").hidden = !shown;
  $("acct-code-label").hidden = !shown;
  if (!shown) $("acct-code").value = "";
}

/** @param {string} path @param {any} body @param {HTMLButtonElement} button */
async function signIn(path, body, button) {
  const r = await act(button, async () => {
    try { return await api("POST", path, body); } catch (e) {
      // The password was right and the account asks a code: the field appears.
      if (e instanceof ApiError && e.code === "two-factor-needed") {
        showCodeField(true);
        $("acct-code").focus();
        toast(t("err:two-factor-needed"));
        return undefined;
      }
      throw e;
    }
  });
  if (!r) return;
  session.me = r;
  $("acct-password").value = "";
  showCodeField(false);
  renderAccount();
  session.changed();
}

// A session for an action that needs one: a guest session when nobody is logged in.
export async function ensureSession() {
  if (session.me) return true;
  try { session.me = await api("POST", "/api/account/guest", {}); } catch (e) { showError(e); return false; }
  renderAccount();
  session.changed();
  return true;
}

// What the mailed links bring: a notice (/online?notice=...), the server's mail, and the
// reset link's form.
async function wireMail() {
  const notice = new URLSearchParams(location.search).get("notice");
  if (notice === "email-confirmed" || notice === "link-not-valid") {
    toast(t(notice === "email-confirmed" ? "onEmailConfirmed" : "onLinkNotValid"));
    history.replaceState(null, "", location.pathname);
  }
  try { mailOn = !!(await api("GET", "/api/health")).mail; } catch (_) { mailOn = false; }
  $("forgot-form").hidden = !mailOn;
  $("forgot-nomail").hidden = mailOn;
  if (session.me) renderAccount();
  if (!resetToken) return;
  try {
    const r = await api("GET", "/api/account/password-reset/" + resetToken);
    $("reset-who").textContent = t("onResetFor", { name: r.name });
    $("reset-name").value = r.name;
  } catch (e) {
    // Only a 404 says the link is dead; a refusal to look it up now (429) or a network
    // error leaves it good, and the form stays for another try.
    if (e instanceof ApiError && e.status === 404) {
      $("reset-who").textContent = t("onLinkNotValid");
      $("reset-form").hidden = true;
    } else {
      showError(e);
    }
  }
}

export function wireAccount() {
  wireMail();
  wireSecurity(() => session.me, (me) => { session.me = me; renderAccount(); }, () => {
    session.me = null;
    renderAccount();
    session.changed();
  });
  $("forgot-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const email = $("forgot-email").value.trim();
    if (!email) return;
    const r = await act($("btn-forgot"), () => api("POST", "/api/account/password-reset", { email }));
    if (r) toast(t("onResetSent"));
  });
  $("email-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const email = $("email-new").value.trim();
    const password = $("email-password").value;
    if (!email || !password) return;
    const r = await act($("btn-email"), () => api("POST", "/api/account/email", { email, password }));
    if (!r) return;
    $("email-password").value = "";
    toast(t("onEmailSent", { email: r.email }));
    session.me = { ...session.me, email: r.email, emailConfirmed: false };
    renderAccount();
  });
  $("reset-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const password = $("reset-password").value;
    if (!password) return;
    const r = await act($("btn-reset"), () => api("POST", "/api/account/password-reset/" + resetToken, { password }));
    if (!r) return;
    // Logged in with a new session: on to the lobby, away from the used link.
    location.replace("/online");
  });

  $("acct-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const c = credentials();
    const code = $("acct-code").value.trim();
    if (c) signIn("/api/account/login", code ? { ...c, code } : c, $("btn-login"));
  });
  $("btn-signup").addEventListener("click", () => {
    const c = credentials();
    if (c) signIn("/api/account/signup", c, $("btn-signup"));
  });
  $("btn-guest").addEventListener("click", () => signIn("/api/account/guest", {}, $("btn-guest")));
  $("btn-logout").addEventListener("click", async () => {
    const r = await act($("btn-logout"), () => api("POST", "/api/account/logout", {}));
    if (!r) return;
    session.me = null;
    renderAccount();
    session.changed();
  });
  $("btn-token").addEventListener("click", async () => {
    const r = await act($("btn-token"), () => api("POST", "/api/account/token", {}));
    if (!r) return;
    $("token-text").value = r.token;
    $("token-box").hidden = false;
  });
  $("btn-token-copy").addEventListener("click", () => copyField($("token-text")));
  // A one-time code that ties a Telegram user to this account (`/link CODE` to the bot).
  $("btn-link-tg").addEventListener("click", async () => {
    const r = await act($("btn-link-tg"), () => api("POST", "/api/account/link-code", {}));
    if (!r) return;
    $("link-text").value = `/link ${r.code}`;
    $("link-box").hidden = false;
  });
  $("btn-link-copy").addEventListener("click", () => copyField($("link-text")));
  // Closing the account: asked once more, then the page is logged out.
  $("close-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    if (!confirm(t("onCloseConfirm"))) return;
    const password = $("close-password").value;
    const r = await act($("btn-close"), () => api("POST", "/api/account/close", { password }));
    if (!r) return;
    $("close-password").value = "";
    session.me = null;
    renderAccount();
    session.changed();
    toast(t("onClosed"));
  });
  // Unties the Telegram users linked to this account: the bot plays them as guests again and
  // the Mini App gives them no session of it (log out everywhere and a new password do too).
  $("btn-unlink-tg").addEventListener("click", async () => {
    const r = await act($("btn-unlink-tg"), () => api("DELETE", "/api/account/telegram"));
    if (!r) return;
    $("link-box").hidden = true;
    toast(t(r.unlinked ? "onUnlinkedTg" : "onNoTgLink"));
  });
}

/** On the account panel: the marks and actions on the account, and the moderators' link. */
async function renderModerationNotices() {
  const box = $("mod-notices");
  box.hidden = true;
  $("link-mod").hidden = true;
  const me = session.me;
  if (!me || me.guest) return;
  let v;
  try { v = await api("GET", "/api/account/moderation"); } catch (_) { return; }
  $("link-mod").hidden = !v.moderator;
  const list = $("mod-notices-list");
  list.innerHTML = "";
  for (const a of v.actions) {
    const li = document.createElement("li");
    li.textContent = `${new Date(a.at).toLocaleDateString()} · ${t("onModAction:" + a.action)}${a.details ? " — " + a.details : ""}`;
    list.appendChild(li);
  }
  box.hidden = !v.actions.length;
}
