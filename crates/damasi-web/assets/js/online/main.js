// The online page's entry: the account box, then the lobby at /online or one game at
// /online/{id}. The look (board style, theme, coordinates, animation, sound) follows the
// reader's settings of the main page (settings.js).
import { apply as applySettings } from "../settings.js";
import { loadAccount, wireAccount } from "./account.js";
import { startLobby } from "./lobby.js";
import { startGame } from "./game.js";

async function boot() {
  applySettings();
  wireAccount();
  await loadAccount();
  const m = location.pathname.match(/^\/online\/([A-Za-z0-9]+)\/?$/);
  if (m) await startGame(m[1]);
  else startLobby();
  document.body.dataset.ready = "1";
}

boot();
