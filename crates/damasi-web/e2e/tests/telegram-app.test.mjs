// The Telegram Mini App (issue #29) in Chromium: the bot's web button opens the online page
// inside Telegram with Telegram's signed `initData` in the address's fragment and the game in
// `tgWebAppStartParam`; the page logs in as the player the bot knows and shows that game. A
// server of its own runs the bot against a small stand-in for the Bot API (getMe, and one
// `/start` from a person through getUpdates, so that the bot knows them); the test signs
// `initData` as Telegram documents it (HMAC-SHA-256 keyed by HMAC-SHA-256("WebAppData", token)).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import { spawn } from "node:child_process";
import { createHmac } from "node:crypto";
import { mkdtempSync, openSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { launch } from "./browser.mjs";

const TOKEN = "123456:MINIAPP";
const PERSON = { id: 424242, is_bot: false, first_name: "Ayla", username: "ayla", language_code: "en" };
const calls = [];
let standIn;
let server;
let base;
let work;
const opened = [];

// The Bot API as the bot uses it here: answers as Telegram's documentation says.
function botApi() {
  let delivered = false;
  return http.createServer((req, res) => {
    let body = "";
    req.on("data", (c) => { body += c; });
    req.on("end", async () => {
      const method = req.url.split("/").pop().toLowerCase();
      let args = {};
      try { args = JSON.parse(body || "{}"); } catch (_) { /* a form or nothing */ }
      calls.push({ method, args });
      const ok = (result) => { res.setHeader("content-type", "application/json"); res.end(JSON.stringify({ ok: true, result })); };
      if (method === "getme") {
        return ok({ id: 7000000002, is_bot: true, first_name: "damasi", username: "damasi_app_bot",
          can_join_groups: true, can_read_all_group_messages: false, supports_inline_queries: true,
          can_connect_to_business: false, has_main_web_app: true });
      }
      if (method === "getupdates") {
        if ((args.offset || 0) > 1) delivered = true;
        if (!delivered) {
          return ok([{ update_id: 1, message: { message_id: 1, date: Math.floor(Date.now() / 1000),
            chat: { id: PERSON.id, type: "private", first_name: PERSON.first_name }, from: PERSON, text: "/start" } }]);
        }
        await sleep(500);
        return ok([]);
      }
      if (method === "sendmessage") {
        return ok({ message_id: 900, date: Math.floor(Date.now() / 1000),
          chat: { id: args.chat_id, type: "private", first_name: PERSON.first_name },
          from: { id: 7000000002, is_bot: true, first_name: "damasi", username: "damasi_app_bot" }, text: args.text });
      }
      return ok(true);
    });
  });
}

// `initData` for `user`, signed with the bot's token as Telegram signs it.
function initData(user, token = TOKEN) {
  const fields = { auth_date: String(Math.floor(Date.now() / 1000)), query_id: "AAHdF6IQAAAAAN0XohDhrOrc", user: JSON.stringify(user) };
  const check = Object.keys(fields).sort().map((k) => `${k}=${fields[k]}`).join("\n");
  const secret = createHmac("sha256", "WebAppData").update(token).digest();
  const hash = createHmac("sha256", secret).update(check).digest("hex");
  return new URLSearchParams({ ...fields, hash }).toString();
}

async function freePort() {
  const s = http.createServer();
  await new Promise((r) => s.listen(0, "127.0.0.1", r));
  const port = s.address().port;
  await new Promise((r) => s.close(r));
  return port;
}

async function json(method, path, body, cookie) {
  const headers = { "content-type": "application/json" };
  if (cookie) headers.cookie = cookie;
  const r = await fetch(base + path, { method, headers, body: body ? JSON.stringify(body) : undefined });
  return { status: r.status, body: await r.json().catch(() => null), cookie: (r.headers.get("set-cookie") || "").split(";")[0] };
}

before(async () => {
  standIn = botApi();
  await new Promise((r) => standIn.listen(0, "127.0.0.1", r));
  const apiUrl = `http://127.0.0.1:${standIn.address().port}`;
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  work = mkdtempSync(join(tmpdir(), "damasi-miniapp-"));
  const log = openSync(join(work, "server.log"), "a");
  server = spawn(process.env.DAMASI_BIN, ["serve", "--port", String(port), "--data-dir", join(work, "data"),
    "--telegram-token", TOKEN, "--telegram-api-url", apiUrl, "--telegram-app", "play"], { stdio: ["ignore", log, log] });
  const end = Date.now() + 20000;
  // Up, and the bot has met the person (it answered their /start).
  for (;;) {
    const up = await fetch(base + "/api/health").then((r) => r.ok, () => false);
    if (up && calls.some((c) => c.method === "sendmessage")) break;
    if (Date.now() > end) throw new Error("the bot's server did not start, or did not answer /start");
    await sleep(100);
  }
});

after(async () => {
  for (const b of opened) await b.close();
  if (server) server.kill("SIGKILL");
  if (standIn) standIn.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

async function open(path) {
  const browser = await launch();
  opened.push(browser);
  const page = browser.context.pages()[0] || (await browser.context.newPage());
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  page.setDefaultTimeout(15000);
  await page.goto(base + path);
  await page.waitForSelector("body[data-ready='1']");
  return { page, errors };
}

test("the Mini App's page logs in with Telegram's initData and shows the game it was opened on", async () => {
  // A game for a friend, made on the site by someone else: the Mini App link names it.
  const host = await json("POST", "/api/account/signup", { name: "host_" + Date.now().toString(36).slice(-5), password: "correct-horse-1" });
  assert.equal(host.status, 200, JSON.stringify(host.body));
  const game = await json("POST", "/api/online/games", { clock: { limit: 300, increment: 3 }, rated: false, color: "white" }, host.cookie);
  assert.equal(game.status, 200, JSON.stringify(game.body));
  const id = game.body.id;
  assert.match(id, /^[A-Za-z0-9]+$/);

  const { page, errors } = await open(`/online?tgWebAppStartParam=${id}#tgWebAppData=${encodeURIComponent(initData(PERSON))}` +
    "&tgWebAppVersion=8.0&tgWebAppPlatform=weba");
  // Logged in as the account the bot plays Ayla with, and on the game's page.
  await page.waitForFunction(() => document.getElementById("acct-me").textContent === "tg-ayla");
  assert.equal(new URL(page.url()).pathname, "/online/" + id);
  await page.waitForSelector("#board .sq");
  const me = await page.evaluate(() => fetch("/api/account").then((r) => r.json()));
  assert.equal(me.name, "tg-ayla");
  assert.deepEqual(errors, []);

  // A changed signature logs nobody in: the page says why and stays a visitor's.
  const forged = initData({ ...PERSON, id: PERSON.id + 1 }).replace(/hash=[0-9a-f]+/, "hash=" + "0".repeat(64));
  const other = await open(`/online#tgWebAppData=${encodeURIComponent(forged)}`);
  const status = await other.page.evaluate(() => fetch("/api/account").then((r) => r.status));
  assert.notEqual(await other.page.textContent("#acct-me"), "tg-ayla");
  assert.ok([200, 401].includes(status));
});
