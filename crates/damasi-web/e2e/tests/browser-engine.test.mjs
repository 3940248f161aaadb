// The main page without the server: chosen by the reader, or exported as static files with
// no damasi server behind them, it plays with the rules and the engine compiled to
// WebAssembly, in this browser; a thinking engine can be stopped at once.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { createServer } from "node:http";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { extname, join, normalize } from "node:path";
import { fileURLToPath } from "node:url";
import { waitUntilUp, URL_BASE } from "./server.mjs";
import { launch } from "./browser.mjs";
import { newGame, sq } from "./page.mjs";

const root = fileURLToPath(new URL("../../../../", import.meta.url));
const wasmBuilt = existsSync(join(root, "target/wasm-pkg/damasi_wasm_bg.wasm"));
const skip = wasmBuilt ? false : "no WebAssembly build (scripts/build-wasm)";

let browser, page, errors, apiRequests;

async function open(url) {
  page = await browser.context.newPage();
  errors = [];
  apiRequests = [];
  page.on("pageerror", (e) => errors.push(e.message));
  page.on("request", (r) => { if (new URL(r.url()).pathname.startsWith("/api/")) apiRequests.push(r.url()); });
  page.setDefaultTimeout(20000);
  await page.goto(url);
  // No game until the person starts one (#33 item 6): the start position, White to move.
  await page.waitForFunction(() => window.Local && Local.active && document.querySelectorAll("#board .piece").length > 0);
}

before(async () => {
  if (skip) return;
  await waitUntilUp();
  browser = await launch();
});

after(async () => {
  if (browser) await browser.close();
});

// Plays a move by two clicks and waits until the game has it.
async function clickMove(from, to) {
  const n = await page.evaluate(() => game.plies.length);
  await page.click(sq(from));
  await page.click(sq(to));
  await page.waitForFunction((n) => game.plies.length > n, n);
}

test("the reader chooses the engine in the browser: no request reaches the server", { skip }, async () => {
  await open(URL_BASE + "/?engine=browser");
  assert.equal(await page.textContent("#btn-engine-mode"), "Engine: this browser");
  await newGame(page, { opponent: "engine", level: 1, color: "white" });
  await clickMove("d3", "d4");
  // The engine (WebAssembly, in a worker) answers.
  await page.waitForFunction(() => game.plies.length === 2 && game.engine.state === "idle", null, { timeout: 30000 });
  assert.equal(await page.evaluate(() => game.side), "white");
  assert.deepEqual(apiRequests, [], "nothing was asked of the server");
  // A reload finds the game kept in this browser.
  const id = await page.evaluate(() => game.id);
  await page.reload();
  await page.waitForFunction((id) => window.Local && Local.active && game && game.id === id && game.plies.length === 2, id);
  // Study analyses the position in the browser too.
  await page.click("#btn-analyse");
  await page.waitForFunction(() => /\d/.test(document.querySelector("#an-depth").textContent)
    && document.querySelector("#an-pv").textContent.length > 2, null, { timeout: 30000 });
  assert.deepEqual(apiRequests, [], "nothing was asked of the server");
  assert.deepEqual(errors, []);
  await page.close();
});

test("a thinking engine in the browser stops at once, and moves when asked again", { skip }, async () => {
  await open(URL_BASE + "/?engine=browser");
  // Level 10 thinks two seconds a move; it plays White, so it thinks at once.
  await newGame(page, { opponent: "engine", level: 10, color: "black" });
  await page.waitForSelector("#btn-stop:not([hidden])");
  const started = Date.now();
  await page.click("#btn-stop");
  await page.waitForFunction(() => game.engine.state === "failed" && game.engine.error === "stopped");
  assert.ok(Date.now() - started < 1500, "stopped before its move time was up");
  assert.equal(await page.evaluate(() => game.plies.length), 0, "no move was played");
  assert.ok(await page.isHidden("#btn-stop"));
  // Retry: the engine thinks again, in a fresh worker, and moves.
  await page.click("#btn-retry");
  await page.waitForFunction(() => game.plies.length === 1, null, { timeout: 30000 });
  assert.deepEqual(errors, []);
  await page.close();
});

test("moves compared in the browser (searchmoves): a line each, best first, a game-ending move scored won", { skip }, async () => {
  await open(URL_BASE + "/?engine=browser");
  const analyze = (body) => page.evaluate(async (body) => {
    try { return await Local.api("POST", "/api/analyze", body); } catch (e) { return { error: e.message, status: e.status }; }
  }, body);
  // d4-d5 wins material (d6xd4 is forced, then d3xd5xb5xb7); e5-f5 does not.
  const fen = "W:Wd2,d3,d4,e5:Bb6,c5,d6,h7";
  const a = await analyze({ fen, move_time_ms: 600, multipv: 2, searchmoves: ["e5-f5", "d4-d5"] });
  assert.deepEqual(a.lines.map((l) => l.move.landing), ["d4-d5", "e5-f5"], JSON.stringify(a));
  assert.equal(a.best.landing, "d4-d5");
  assert.ok(a.lines[0].score >= a.lines[1].score + 100, JSON.stringify(a.lines));
  for (const l of a.lines) {
    assert.equal(l.white_score, l.score, "White to move");
    assert.equal(l.pv[0], l.move.landing);
  }
  // Taking Black's last piece ends the game: won, without a search.
  const won = await analyze({ fen: "W:Wa3,d4:Bd5", move_time_ms: 200, multipv: 1, searchmoves: ["d4xd6"] });
  assert.equal(won.lines[0].score, 10000, JSON.stringify(won));
  // A move that is not legal there is refused, naming which one.
  const bad = await analyze({ fen, move_time_ms: 200, multipv: 2, searchmoves: ["e5-f5", "a3-a4"] });
  assert.match(bad.error, /^searchmoves\[1\]: /);
  assert.equal(bad.status, 422);
  assert.deepEqual(apiRequests, [], "nothing was asked of the server");
  assert.deepEqual(errors, []);
  await page.close();
});

test("the exported page with no server plays with the engine in the browser", { skip }, async () => {
  const dir = mkdtempSync(join(tmpdir(), "damasi-site-"));
  execFileSync(process.env.DAMASI_BIN, ["export-site", dir, "--wasm-dir", join(root, "target/wasm-pkg")], { stdio: "ignore" });
  const types = { ".html": "text/html", ".js": "text/javascript", ".wasm": "application/wasm", ".css": "text/css", ".svg": "image/svg+xml" };
  // A plain static file server: /api/... is a 404 like any missing file.
  const server = createServer((req, res) => {
    let path = normalize(decodeURIComponent(new URL(req.url, "http://x").pathname));
    if (path.endsWith("/")) path += "index.html";
    const file = join(dir, path);
    if (!file.startsWith(dir) || !existsSync(file) || !statSync(file).isFile()) { res.writeHead(404); res.end("not found"); return; }
    res.writeHead(200, { "content-type": types[extname(file)] || "application/octet-stream" });
    res.end(readFileSync(file));
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  try {
    await open(`http://127.0.0.1:${server.address().port}/app/`);
    // Opening the page saves no game in the browser (#33 item 6).
    await page.waitForFunction(() => /first move/.test(document.querySelector("#status").textContent));
    const stored = () => page.evaluate(() => JSON.parse(localStorage.getItem("damasi.local.games") || "[]").length);
    assert.equal(await stored(), 0);
    await newGame(page, { opponent: "engine", level: 1, color: "white" });
    await clickMove("c3", "c4");
    await page.waitForFunction(() => game.plies.length === 2, null, { timeout: 30000 });
    assert.deepEqual(apiRequests, [], "nothing was asked of a server");
    assert.ok(await page.isHidden("#btn-engine-mode"), "no server to switch to");
    assert.deepEqual(errors, []);
    await page.close();
  } finally {
    server.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
