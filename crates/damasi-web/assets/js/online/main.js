// The online page's entry: the account box, then the lobby at /online or one game at
// /online/{id}. The language, the look (board style, theme, coordinates, animation, sound)
// and the settings dialog are the main page's (i18n.js, settings.js): one choice for both.
import { $ } from "../util.js";
import { applyI18n, wireLangs } from "../i18n.js";
import { onSettings, settings, wireSettings } from "../settings.js";
import { loadAccount, renderAccount, wireAccount } from "./account.js";
import { redrawLobby, startLobby } from "./lobby.js";
import { flipBoard, redrawGame, startGame } from "./game.js";

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

async function boot() {
  applyI18n();
  const m = location.pathname.match(/^\/online\/([A-Za-z0-9]+)\/?$/);
  wireHeader(!!m);
  wireLangs(() => {
    renderAccount();
    if (m) redrawGame(); else redrawLobby();
  });
  wireAccount();
  await loadAccount();
  if (m) await startGame(m[1]);
  else startLobby();
  document.body.dataset.ready = "1";
}

boot();
