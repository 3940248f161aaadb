// The exported site in headless Chromium: served by a plain static file server (no damasi
// server runs), its address opens the web app's own page (app/), which plays the in-browser
// engine and keeps the game in this browser; after the file server is stopped and the browser
// is offline, it reloads from the service worker's cache, resumes the game and plays on.
import { createReadStream, existsSync } from "node:fs";
import { createServer } from "node:http";
import { createRequire } from "node:module";
import { extname, join, resolve, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { test } from "node:test";
import assert from "node:assert/strict";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const require = createRequire(join(root, "crates/damasi-web/e2e/package.json"));
const { chromium } = require("playwright-core");
const site = process.env.DAMASI_SITE;
const TYPES = {
  ".html": "text/html", ".js": "text/javascript", ".css": "text/css", ".wasm": "application/wasm",
  ".webmanifest": "application/manifest+json", ".svg": "image/svg+xml", ".json": "application/json",
};

function serve(dir) {
  const server = createServer((req, res) => {
    const path = new URL(req.url, "http://x").pathname;
    const rel = path.slice(1).replace(/\.\./g, "");
    const file = join(dir, rel === "" || rel.endsWith("/") ? rel + "index.html" : rel);
    if (!existsSync(file)) { res.writeHead(404); res.end(); return; }
    res.writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream" });
    createReadStream(file).pipe(res);
  });
  return new Promise((ok) => server.listen(0, "127.0.0.1", () => ok(server)));
}

const sq = (name) => `#board .sq[data-sq="${name}"]`;

// The game shown has `n` plies and the engine is not thinking.
async function waitForPlies(page, n) {
  await page.waitForFunction((n) => window.Local && Local.active && window.game && game.plies.length === n
    && game.engine.state !== "thinking", n, { timeout: 30_000 });
}

// A legal move of the side to move, played by clicking its squares on the board.
async function playLegal(page) {
  const m = await page.evaluate(() => board.moves.find((m) => m.route.length === 1) || board.moves[0]);
  await page.click(sq(m.from));
  for (const s of m.route) await page.click(sq(s));
  return m.landing;
}

test("the static site plays the wasm engine and reloads offline", { timeout: 120_000 }, async () => {
  assert.ok(site, "DAMASI_SITE: the directory written by damasi export-site");
  const server = await serve(site);
  const url = `http://127.0.0.1:${server.address().port}/`;
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    args: ["--no-sandbox"],
  });
  try {
    const context = await browser.newContext();
    const page = await context.newPage();
    const errors = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    await page.goto(url);
    // The site's address leads to the main page, with the engine in this browser.
    await page.waitForURL(/\/app\/$/);
    await page.waitForFunction(() => window.Local && Local.active && document.querySelectorAll("#board .piece").length === 32);
    assert.match(await page.textContent("#status"), /first move/);
    await page.evaluate(() => navigator.serviceWorker.ready);

    // The human (White) plays d3-d4 by clicking: the first move starts a game against the
    // engine, which answers from its worker.
    await page.click(sq("d3"));
    await page.click(sq("d4"));
    await waitForPlies(page, 2);
    assert.equal(await page.evaluate(() => game.plies[0].move.landing), "d3-d4");
    const fenOnline = await page.evaluate(() => game.fen);

    // The game is kept in this browser.
    const saved = await page.evaluate(() => JSON.parse(localStorage.getItem("damasi.local.games") || "[]"));
    assert.equal(saved.length, 1);
    assert.match(saved[0].pdn, /1\. d3-d4 /);

    // No server at all from here on, and no network.
    server.closeAllConnections();
    await new Promise((ok) => server.close(ok));
    await context.setOffline(true);
    await page.reload();
    await waitForPlies(page, 2);
    assert.equal(await page.evaluate(() => game.fen), fenOnline);
    assert.ok(await page.evaluate(() => navigator.serviceWorker.controller !== null));
    // Nothing answers on the network: the page came from the service worker's cache.
    const probe = await page.evaluate(() => fetch(`probe-${Date.now()}`).then(() => "reached", () => "failed"));
    assert.equal(probe, "failed");

    // Offline, the engine still answers.
    const text = await playLegal(page);
    await waitForPlies(page, 4);
    assert.equal(await page.evaluate(() => game.plies[2].move.landing), text);
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
    server.close();
  }
});
