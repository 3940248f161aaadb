// The server's JSON API (docs/web-api.md), or the same API answered in this page by the
// engine in WebAssembly (local.js) when there is no server or the reader chose it.
import { ApiError, NetworkError } from "./errors.js";
import { Plies } from "./plies.js";
import { Local } from "./local.js";
import { S } from "./state.js";
import { t, hasText, outcomeText, toast } from "./i18n.js";

export { ApiError, NetworkError };

export async function api(method, path, body, signal) {
  // No server (or the reader's choice): the same API, answered in this page (local.js).
  if (Local.active && Local.answers(path)) return Plies.take(await Local.api(method, path, body, signal), S.game);
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
    case "bad-request": {
      // A text the person gave that the server could not read: said in the reader's language,
      // naming the piece of text at fault (the English detail only in English).
      const token = quoted(e.message);
      if (e.typed) return t("badMoveText", { text: e.typed, detail: e.message });
      if (e.about === "fen") return t("badFen", { detail: e.message.replace(/^bad FEN: /, ""), where: token ? ` (“${token}”)` : "" });
      if (e.about === "pdn") {
        const at = /game (\d+) line (\d+)/.exec(e.message);
        const detail = e.message.replace(/^PDN: /, "");
        if (!at) return t("badPdn", { detail });
        return t("badPdnAt", { detail, game: at[1], line: at[2], where: token ? `: “${token}”` : "" });
      }
      return t("err:bad-request", { detail: e.message });
    }
    default:
      if (e.code && hasText("err:" + e.code)) return t("err:" + e.code, { detail: e.message });
      return t("err:unknown", { detail: e.message });
  }
}

/** The first 'quoted' piece of a server message: the text it could not read. @param {string} message */
export function quoted(message) {
  const m = /'([^']{1,40})'/.exec(message || "");
  return m ? m[1] : "";
}

/** A PDN import's report of one broken game, in the reader's language.
 * @param {{game: number, line: number, message: string}} err */
export function importErrorText(err) {
  const token = quoted(err.message);
  return t("importError", { game: err.game, line: err.line, message: err.message, where: token ? ` “${token}”` : "" });
}

/** An error of a request that carried a position the person gave (typed, edited, linked). */
export function showFenError(e) {
  if (e instanceof ApiError) e.about = "fen";
  showError(e);
}

export function showError(e) {
  if (e && e.name === "AbortError") return;
  toast(errorText(e), e instanceof ApiError && e.legal ? 7000 : 4500);
}

// A failure worth retrying: no answer at all, or the server's own fault (a restart, a busy
// engine). A 4xx is an answer.
/** @param {any} e */
export function transient(e) { return e instanceof NetworkError || (e instanceof ApiError && e.status >= 500); }
