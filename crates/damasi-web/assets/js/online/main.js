// The online page's entry: the account box, then the lobby at /online, one game at
// /online/{id}, a player's profile at /@/{name} or the leaderboards at /player. The language,
// the look (board style, theme, coordinates, animation, sound) and the settings dialog are
// the main page's (i18n.js, settings.js): one choice for both.
import { $ } from "../util.js";
import { api, showError } from "../api.js";
import { applyI18n, wireLangs } from "../i18n.js";
import { onSettings, settings, wireSettings } from "../settings.js";
import { loadAccount, renderAccount, wireAccount } from "./account.js";
import { redrawLobby, startLobby } from "./lobby.js";
import { flipBoard, redrawGame, startGame } from "./game.js";
import { redrawLeaders, redrawProfile, startLeaders, startProfile } from "./profile.js";
import { redrawChallenges, startChallenges } from "./challenges.js";
import { startMod, wireReports } from "./moderation.js";

// The header's ? (keyboard shortcuts) and ⚙ (settings), and their keys, as on the main page.
function wireHeader(/** @type {boolean} */ inGame) {
  wireSettings();
  onSettings((s) => { $("sound").checked = s.sound; });
  $("sound").checked = settings.sound;
  $("btn-help").addEventListener("click", () => $("help-dialog").showModal());
  document.addEventListener("keydown", (e) => {
    const target = /** @type {HTMLElement} */ (e.target);
    const tag = (target.tagName || "").toLowerCase();
    if (["input", "textarea", "select"].includes(tag) || e.ctrlKey || e.metaKey || e.altKey) return;
    if ($("settings-dialog").open || $("help-dialog").open) return;
    if (e.key === "?") { $("help-dialog").showModal(); e.preventDefault(); }
    else if (e.key === "s") { $("settings-dialog").showModal(); e.preventDefault(); }
    else if (e.key === "f" && inGame) { flipBoard(); e.preventDefault(); }
  });
}

// Opened from the Telegram bot's Mini App button: Telegram puts its signed `initData` in the
// address's fragment (`#tgWebAppData=...`) and the game in `tgWebAppStartParam`. The server
// checks the signature and logs the player in as the bot knows them; then the game is shown.
async function telegramLogIn() {
  const hash = new URLSearchParams(location.hash.slice(1));
  const initData = hash.get("tgWebAppData");
  if (!initData) return;
  const start = new URLSearchParams(location.search).get("tgWebAppStartParam") || hash.get("tgWebAppStartParam");
  try {
    await api("POST", "/api/account/telegram", { initData });
  } catch (e) {
    showError(e);
  }
  const game = start && /^[A-Za-z0-9]+$/.test(start) ? "/online/" + start : location.pathname;
  history.replaceState(null, "", game);
}

async function boot() {
  applyI18n();
  await telegramLogIn();
  const m = location.pathname.match(/^\/online\/([A-Za-z0-9]+)\/?$/);
  // A player's profile (/@/{name}) and the leaderboards (/player).
  const profile = location.pathname.match(/^\/@\/([^/]+)\/?$/);
  const leaders = /^\/player\/?$/.test(location.pathname);
  // The moderators' reports (/mod).
  const moderating = /^\/mod\/?$/.test(location.pathname);
  wireHeader(!!m);
  wireLangs(() => {
    renderAccount();
    redrawChallenges();
    if (m) redrawGame();
    else if (profile) redrawProfile();
    else if (leaders) redrawLeaders();
    else if (!moderating) redrawLobby();
  });
  wireAccount();
  wireReports();
  await loadAccount();
  if (m) await startGame(m[1]);
  else if (profile) await startProfile(decodeURIComponent(profile[1]));
  else if (leaders) await startLeaders();
  else if (moderating) await startMod();
  else startLobby();
  // After the view: the lobby sets the stream's own handler first.
  startChallenges();
  document.body.dataset.ready = "1";
}

boot();
