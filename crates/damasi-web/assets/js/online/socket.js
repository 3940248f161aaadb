// The game's WebSocket: opened on arrival, opened again when it drops (sooner when the network
// comes back); the server's first message (gameFull) brings the page up to date. What the
// person does goes over it, or as an HTTP request while it is down.
import { $ } from "../util.js";
import { api, ApiError, errorText } from "../api.js";
import { t } from "../i18n.js";
import { view } from "./state.js";

export const socket = {
  /** Each message of the server. @type {(msg: any) => void} */
  onMessage: (_msg) => {},
  /** A game state an HTTP request answered with. @type {(s: any) => void} */
  onState: (_s) => {},
  /** The whole game, fetched before reconnecting. @type {(full: any) => void} */
  onFull: (_full) => {},
  /** A refused request. @type {(e: any) => void} */
  onRefused: (_e) => {},
};

function socketUrl() {
  return (location.protocol === "https:" ? "wss://" : "ws://") + location.host + `/api/online/games/${encodeURIComponent(view.id)}/socket`;
}

/** Shows the connection's trouble under the board (none: hidden). @param {string} text */
export function setConn(text) {
  $("conn").hidden = !text;
  $("conn").textContent = text || "";
}

export function connect() {
  clearTimeout(view.retryTimer);
  if (view.ws) {
    const old = view.ws;
    view.ws = null;
    old.onclose = null;
    old.onmessage = null;
    try { old.close(); } catch (_) { /* closed */ }
  }
  view.wsOpen = false;
  let ws;
  try { ws = new WebSocket(socketUrl()); } catch (_) { scheduleReconnect(); return; }
  view.ws = ws;
  ws.onopen = () => {
    if (view.ws !== ws) return;
    view.wsOpen = true;
  };
  ws.onmessage = (e) => {
    if (view.ws !== ws) return;
    view.heardAt = performance.now();
    let msg;
    try { msg = JSON.parse(e.data); } catch (_) { return; }
    if (msg.type === "gameFull") {
      // The server's first message: the connection works.
      view.retry = 0;
      view.connects += 1;
      document.body.dataset.socket = "open";
      document.body.dataset.connects = String(view.connects);
      setConn("");
    }
    socket.onMessage(msg);
  };
  ws.onclose = () => {
    if (view.ws !== ws) return;
    view.ws = null;
    view.wsOpen = false;
    document.body.dataset.socket = "closed";
    scheduleReconnect();
  };
}

function scheduleReconnect() {
  clearTimeout(view.retryTimer);
  const delay = Math.min(5000, 500 * 2 ** view.retry);
  view.retry = Math.min(view.retry + 1, 6);
  setConn(t(navigator.onLine === false ? "onOffline" : "onConnLost"));
  view.retryTimer = setTimeout(async () => {
    // The game may be gone (an unknown id): then there is nothing to reconnect to.
    try {
      socket.onFull(await api("GET", `/api/online/games/${encodeURIComponent(view.id)}`));
    } catch (e) {
      if (e instanceof ApiError && e.status === 404) { setConn(errorText(e)); return; }
    }
    connect();
  }, delay);
}

/**
 * Sends a message over the socket, or with `fallback` (an HTTP request) when it is down.
 * @param {any} msg @param {() => Promise<any>} fallback
 */
export function send(msg, fallback) {
  if (view.ws && view.wsOpen) {
    view.ws.send(JSON.stringify(msg));
    return;
  }
  fallback().then((r) => { if (r && r.type === "gameState") socket.onState(r); }).catch((e) => { socket.onRefused(e); });
}

/** A socket silent this long while the game is played asks for the game's state: a message
 * lost on its way (between two server processes) must not leave the page waiting for a move
 * that was made. */
const SILENCE_MS = 15000;

/** Checks for that silence every few seconds. @param {() => boolean} playing */
export function watchSilence(playing) {
  setInterval(async () => {
    if (!view.ws || !view.wsOpen || !playing()) return;
    if (performance.now() - view.heardAt < SILENCE_MS) return;
    view.heardAt = performance.now();
    try {
      socket.onFull(await api("GET", `/api/online/games/${encodeURIComponent(view.id)}`));
    } catch (_) { /* tried again after the next silence */ }
  }, 5000);
}

// A new network: the old connection may be dead without knowing it, so open a new one.
export function wireReconnects() {
  window.addEventListener("online", () => { view.retry = 0; connect(); });
  window.addEventListener("offline", () => setConn(t("onOffline")));
  document.addEventListener("visibilitychange", () => {
    if (!document.hidden && !view.wsOpen && view.id) { view.retry = 0; connect(); }
  });
}
