// The offline page in headless Chromium: served by a plain static file server (no damasi
// server runs), it plays the in-browser engine, keeps the game in IndexedDB, and after the
// file server is stopped and the browser is offline, reloads from the service worker's cache,
// resumes the game and plays on.
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
  ".webmanifest": "application/manifest+json", ".svg": "image/svg+xml",
};

function serve(dir) {
  const server = createServer((req, res) => {
    const path = new URL(req.url, "http://x").pathname;
    const file = join(dir, path === "/" ? "index.html" : path.slice(1).replace(/\.\./g, ""));
    if (!existsSync(file)) { res.writeHead(404); res.end(); return; }
    res.writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream" });
    createReadStream(file).pipe(res);
  });
  return new Promise((ok) => server.listen(0, "127.0.0.1", () => ok(server)));
}

async function waitForPly(page, ply) {
  await page.waitForSelector(`body[data-ply="${ply}"][data-state="ready"]`, { timeout: 30_000 });
}

async function playLegal(page) {
  // A legal move from the rules module, played by clicking its start and end squares.
  const [m] = await page.evaluate(() => window.damasiOffline.legal());
  await page.click(`[data-square="${m.from}"]`);
  await page.click(`[data-square="${m.to}"]`);
  return m.text;
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
    await waitForPly(page, 0);
    assert.match(await page.textContent("#status"), /Your move \(White\)/);
    await page.evaluate(() => navigator.serviceWorker.ready);

    // The human (White) plays d3-d4 by clicking; the engine in the worker answers.
    await page.click('[data-square="d3"]');
    await page.click('[data-square="d4"]');
    await waitForPly(page, 2);
    const moves = await page.locator("#moves li").allTextContents();
    assert.equal(moves.length, 1);
    assert.match(moves[0], /^d3-d4\s+\S+$/);
    const fenOnline = await page.evaluate(() => window.damasiOffline.fen());

    // The game is in IndexedDB.
    const saved = await page.evaluate(() => new Promise((ok) => {
      const r = indexedDB.open("damasi", 1);
      r.onsuccess = () => {
        const q = r.result.transaction("games").objectStore("games").getAll();
        q.onsuccess = () => ok(q.result.map((g) => ({ plies: g.plies, pdn: g.pdn })));
      };
    }));
    assert.equal(saved.length, 1);
    assert.equal(saved[0].plies, 2);
    assert.match(saved[0].pdn, /1\. d3-d4 /);

    // No server at all from here on, and no network.
    server.closeAllConnections();
    await new Promise((ok) => server.close(ok));
    await context.setOffline(true);
    await page.reload();
    await waitForPly(page, 2);
    assert.equal(await page.evaluate(() => window.damasiOffline.fen()), fenOnline);
    assert.ok(await page.evaluate(() => navigator.serviceWorker.controller !== null));
    // Nothing answers on the network: the page came from the service worker's cache.
    const probe = await page.evaluate(() => fetch(`probe-${Date.now()}`).then(() => "reached", () => "failed"));
    assert.equal(probe, "failed");

    // Offline, the engine still answers.
    const text = await playLegal(page);
    await waitForPly(page, 4);
    const after = await page.locator("#moves li").allTextContents();
    assert.equal(after.length, 2);
    assert.ok(after[1].startsWith(text), `${after[1]} starts with ${text}`);
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
    server.close();
  }
});
