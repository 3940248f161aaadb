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
  const types = { ".html": "text/html", ".js": "text/javascript", ".wasm": "application/wasm", ".css": "text/css", ".svg": "image/svg+xml", ".json": "application/json" };
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
    const site = `http://127.0.0.1:${server.address().port}/`;
    // The site's address is the main page (#33 item 14: one page and one board everywhere).
    await open(site);
    assert.equal(new URL(page.url()).pathname, "/app/");
    // Opening the page saves no game in the browser (#33 item 6).
    await page.waitForFunction(() => /first move/.test(document.querySelector("#status").textContent));
    const stored = () => page.evaluate(() => JSON.parse(localStorage.getItem("damasi.local.games") || "[]").length);
    assert.equal(await stored(), 0);
    // What needs a server is put away with a word why (#33 item 13): puzzles, online play
    // and clocks.
    assert.ok(await page.isHidden("#tab-puzzle") && await page.isHidden("#link-online"));
    assert.match(await page.textContent("#no-server-note"), /puzzles and online play need the damasi server/);
    assert.ok(await page.isVisible("#no-server-note"));
    await page.click("#btn-new");
    assert.ok(await page.isDisabled("#new-time"));
    assert.ok(await page.isVisible("#new-no-clock"));
    await page.keyboard.press("Escape");
    await newGame(page, { opponent: "engine", level: 1, color: "white" });
    assert.equal(await page.evaluate(() => game.clock), null, "no clock");
    await clickMove("c3", "c4");
    await page.waitForFunction(() => game.plies.length === 2, null, { timeout: 30000 });
    assert.deepEqual(apiRequests, [], "nothing was asked of a server");
    assert.ok(await page.isHidden("#btn-engine-mode"), "no server to switch to");

    // The main page's board: coordinates, flip, settings, Turkish, and the choice between
    // two capture routes that end on one square (as on the server's page).
    assert.equal(await page.locator("#board .coord").count(), 16);
    await page.click("#btn-flip");
    assert.equal(await page.getAttribute("#board", "data-flipped"), "true");
    await page.click("#btn-flip");
    await page.click("#lang-tr");
    assert.equal(await page.textContent("#tab-learn"), "Öğren");
    await page.click("#lang-en");
    // The king on h2 takes h3 and f4 or e6 either way round: both routes end on b1.
    await page.goto(site + "app/#/study?fen=" + encodeURIComponent("W:WKh2:Ba7,e6,h3,f4,b2"));
    await page.waitForFunction(() => Local.active && document.querySelectorAll("#board .piece").length === 6
      && document.querySelector('#board .piece.movable[data-sq="h2"]'));
    await page.click(sq("h2"));
    await page.click(sq("b1"));
    await page.waitForSelector(`${sq("b1")}.routeend`);
    assert.match(await page.textContent("#status"), /Several captures end there/);
    await page.click(sq("h6"));
    await page.waitForFunction(() => document.querySelector("#st-moves button") && document.querySelector("#st-moves button").textContent === "h2xh6xb6xb1");

    // Learn works without a server: the course ships with the export.
    await page.goto(site + "app/#/learn/men-forward");
    await page.waitForFunction(() => /\S/.test(document.querySelector("#learn-title").textContent));
    await page.waitForSelector('#board .piece.movable[data-sq="d3"]');
    await page.click(sq("d3"));
    await page.click(sq("d4"));
    await page.waitForSelector("#learn-feedback.right:not([hidden])");
    // A puzzle's address says why there are none here.
    await page.goto(site + "app/#/puzzle");
    await page.waitForSelector("#pz-no-server:not([hidden])");
    assert.ok(await page.isHidden("#pz-body"));
    assert.deepEqual(apiRequests, [], "nothing was asked of a server");
    assert.deepEqual(errors, []);
    await page.close();
  } finally {
    server.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
