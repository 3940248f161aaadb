// The server's JSON API (docs/web-api.md), or the same API answered in this page by the
// engine in WebAssembly (local.js) when there is no server or the reader chose it.
import { Plies } from "./plies.js";
import { Local } from "./local.js";
import { S } from "./state.js";
import { t, hasText, outcomeText, toast } from "./i18n.js";

// A refusal or fault the server answered with: its status, machine code and the values its
// message names (see docs/web-api.md). The English message is kept only as a last resort.
export class ApiError extends Error {
  constructor(status, body) {
    body = body && typeof body === "object" ? body : {};
    super(typeof body.error === "string" ? body.error : "HTTP " + status);
    this.status = status;
    this.code = typeof body.code === "string" ? body.code : status >= 500 ? "internal" : "";
    this.params = body.params && typeof body.params === "object" ? body.params : {};
    this.legal = Array.isArray(body.legal) ? body.legal : null;
    /** @type {string|undefined} what the person typed, for an illegal move's message */
    this.typed = undefined;
  }
}

// No answer at all: the server is down or restarting, or the network is gone.
export class NetworkError extends Error {}

export async function api(method, path, body, signal) {
  // No server (or the reader's choice): the same API, answered in this page (local.js).
  if (Local.active) return Plies.take(await Local.api(method, path, body, signal), S.game);
  const opts = { method, headers: {}, signal };
  if (body !== undefined) {
    opts.headers["content-type"] = "application/json";
    opts.body = JSON.stringify(body);
  }
  let res, text;
  try {
    res = await fetch(path, opts);
    text = await res.text();
  } catch (e) {
    if (e.name === "AbortError") throw e;
    throw new NetworkError(e.message);
  }
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch (_) { data = { error: text }; }
  if (!res.ok) throw new ApiError(res.status, data);
  // A game's plies come in pages: spread them over the whole game (plies.js).
  return Plies.take(data, S.game);
}

// An error in the reader's language: by the server's code and params, never by its sentence.
export function errorText(e) {
  if (e instanceof NetworkError) return t("err:network");
  if (!(e instanceof ApiError)) return String((e && e.message) || e);
  const list = (e.legal || []).join("  ");
  switch (e.code) {
    case "illegal-move": {
      const head = t("illegalMove") + (e.typed ? `: “${e.typed}”` : "");
      return head + ". " + (e.legal && e.legal.length ? t("legalAre", { list }) : t("noMoves"));
    }
    case "ambiguous-move": return t("err:ambiguous-move", { text: e.typed || "", list });
    case "game-over": return t("err:game-over", { outcome: outcomeText(e.params.outcome || "") });
    default:
      if (e.code && hasText("err:" + e.code)) return t("err:" + e.code, { detail: e.message });
      return t("err:unknown", { detail: e.message });
  }
}

export function showError(e) {
  if (e && e.name === "AbortError") return;
  toast(errorText(e), e instanceof ApiError && e.legal ? 7000 : 4500);
}

// A failure worth retrying: no answer at all, or the server's own fault (a restart, a busy
// engine). A 4xx is an answer.
/** @param {any} e */
export function transient(e) { return e instanceof NetworkError || (e instanceof ApiError && e.status >= 500); }
