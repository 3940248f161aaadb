// The web app in a real headless browser: play by clicking and dragging, the engine's answer,
// a multi-capture jump by jump, take-back, PDN import and export, and saved games that survive
// a crash of the server.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { waitUntilUp, crashAndRestart } from "./server.mjs";
import {
  openApp, sq, moveTexts as pageMoveTexts, waitForPlies as pageWaitForPlies, waitIdle as pageWaitIdle,
  newGame as pageNewGame,
} from "./page.mjs";

const SHOTS = process.env.DAMASI_SCREENSHOTS || "";
let browser, page, pageErrors = [];

async function shot(name, p = page) {
  if (!SHOTS) return;
  mkdirSync(SHOTS, { recursive: true });
  await p.evaluate(() => { document.getElementById("toast").hidden = true; });
  await p.waitForTimeout(250);
  await p.screenshot({ path: join(SHOTS, name + ".png") });
}

const moveTexts = () => pageMoveTexts(page);
const waitForPlies = (n) => pageWaitForPlies(page, n);
const waitIdle = () => pageWaitIdle(page);
const newGame = (opts) => pageNewGame(page, opts);

before(async () => {
  await waitUntilUp();
  ({ browser, page, errors: pageErrors } = await openApp());
});

after(async () => {
  if (browser) await browser.close();
});

test("the page shows the start position with White to move", async () => {
  assert.equal(await page.locator("#board .piece.w").count(), 16);
  assert.equal(await page.locator("#board .piece.b").count(), 16);
  await page.waitForFunction(() => document.querySelector("#status").textContent.includes("White"));
});

test("play a move by clicking and the engine answers", async () => {
  await newGame({ opponent: "engine", level: 1, color: "white", time: "5+3" });
  assert.equal(await page.textContent("#clock-bottom"), "5:00");
  await page.click(sq("d3"));
  // The legal targets of the picked man are shown.
  assert.equal(await page.locator("#board .sq.target").count(), 1);
  assert.ok(await page.locator(sq("d4") + ".target").count());
  await page.click(sq("d4"));
  await waitForPlies(2);
  await waitIdle();
  const texts = await moveTexts();
  assert.equal(texts[0], "d3-d4");
  await page.waitForFunction(() => /Engine plays/.test(document.querySelector("#announce").textContent));
  await shot("play");
});

let fenBeforeDrag = "";

test("drag a piece to move, then type a move", async () => {
  // The engine's reply is not known in advance: drag the first legal move the server lists.
  const m = await page.evaluate(() => game.legal[0]);
  fenBeforeDrag = await page.evaluate(() => game.fen);
  const from = await page.locator(sq(m.from)).boundingBox();
  const to = await page.locator(sq(m.to)).boundingBox();
  await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
  await page.mouse.down();
  await page.mouse.move(to.x + to.width / 2, to.y + to.height / 2, { steps: 6 });
  await page.mouse.up();
  await page.waitForFunction(() => document.querySelectorAll("#movelist button").length >= 3, null, { timeout: 20000 });
  await waitIdle();
  assert.equal((await moveTexts())[2], m.landing);
  // An illegal typed move is refused with the legal ones listed.
  const plies = (await moveTexts()).length;
  await page.fill("#move-input", "a3-a6");
  await page.press("#move-input", "Enter");
  await page.waitForFunction(() => /Legal moves/.test(document.querySelector("#toast").textContent));
  assert.equal((await moveTexts()).length, plies);
});

test("take back returns to the position before my last move", async () => {
  await waitIdle();
  await page.click("#btn-takeback");
  await page.waitForFunction((fen) => game.fen === fen, fenBeforeDrag);
  assert.equal((await moveTexts()).length, 2);
});

test("arrow keys browse the moves", async () => {
  await page.click("h1");
  await page.keyboard.press("ArrowLeft");
  await page.waitForFunction(() => document.querySelector("#status").textContent.includes("move 1"));
  await page.keyboard.press("Home");
  assert.equal(await page.locator("#board .piece").count(), 32);
  await page.keyboard.press("End");
  await page.waitForFunction(() => !document.querySelector("#status").textContent.includes("Viewing"));
});

test("play from the keyboard alone, with the move announced", async () => {
  await newGame({ opponent: "human" });
  await page.evaluate(() => { board.cursor = "d4"; });
  await page.focus("#board");
  await page.keyboard.press("ArrowDown");
  await page.keyboard.press("Enter");
  assert.ok(await page.locator(sq("d3") + ".sel").count(), "d3 picked");
  await page.keyboard.press("ArrowUp");
  await page.keyboard.press("Enter");
  await waitForPlies(1);
  assert.equal((await moveTexts())[0], "d3-d4");
  await page.waitForFunction(() => document.querySelector("#announce").textContent.includes("White plays d3-d4"));
});

const CAPTURE_FEN = "W:Wb3,g2:Bc3,d4,h7";

test("a forced multi-capture is entered jump by jump", async () => {
  await page.click("#tab-study");
  await page.fill("#fen-input", CAPTURE_FEN);
  await page.click("#fen-form button[type=submit]");
  // The server writes the FEN back in a1..h8 order.
  await page.waitForFunction(() => document.querySelector("#fen-input").value === "W:Wg2,b3:Bc3,d4,h7");
  await newGame({ opponent: "human", fromStudy: true });
  await page.waitForFunction(() => game && game.forced_capture);
  // Only the capturing piece can be picked.
  await page.click(sq("g2"));
  await page.waitForFunction(() => document.querySelector("#status").textContent.includes("capture is forced"));
  await page.click(sq("b3"));
  assert.ok(await page.locator(sq("d3") + ".target").count(), "first landing square shown");
  await page.click(sq("d3"));
  assert.ok(await page.locator(sq("d5") + ".target.final").count(), "second landing square shown");
  await shot("multi-capture");
  await page.click(sq("d5"));
  await waitForPlies(1);
  assert.equal((await moveTexts())[0], "b3xd3xd5");
  await page.selectOption("#notation", "captured");
  assert.equal((await moveTexts())[0], "b3xc3xd4");
  await page.selectOption("#notation", "landing");
  // Black resigns (the page asks first; the test accepts): the end is stated with its reason.
  await page.click("#btn-resign");
  await page.waitForSelector("#banner:not([hidden])");
  // Said once, in one sentence: the banner; the status line is hidden meanwhile.
  assert.match(await page.textContent("#banner-text"), /^White wins: Black resigned1-0$/);
  assert.ok(await page.isHidden("#status"));
  await shot("game-over");
});

test("export the game as PDN", async () => {
  const [download] = await Promise.all([page.waitForEvent("download"), page.click("#btn-export-play")]);
  const text = readFileSync(await download.path(), "utf8");
  assert.match(text, /\[GameType "30"\]/);
  assert.match(text, /\[FEN "W:Wg2,b3:Bc3,d4,h7"\]/);
  assert.match(text, /b3xd3xd5/);
});

const IMPORT = `[Event "e2e import"]
[White "Ayşe"]
[Black "Mehmet"]
[GameType "30"]

1. d3-d4 e6-e5 2. c3-c4 f6-f5 *
`;

test("import a PDN and open it", async () => {
  await page.click("#tab-games");
  await page.waitForSelector("#games-body tr");
  const before = await page.locator("#games-body tr[data-id]").count();
  await page.fill("#pdn-text", IMPORT);
  await page.click("#pdn-form button[type=submit]");
  await page.waitForFunction(() => /Imported 1/.test(document.querySelector("#toast").textContent));
  await page.waitForFunction((n) => document.querySelectorAll("#games-body tr[data-id]").length === n + 1, before);
  await shot("games");
  await page.click("#games-body tr:first-child button.resume");
  await waitForPlies(4);
  assert.deepEqual(await moveTexts(), ["d3-d4", "e6-e5", "c3-c4", "f6-f5"]);
});

test("study: analysis with evaluation bar and position editor", async () => {
  await page.click("#btn-analyse");
  await page.waitForFunction(() => document.querySelector("#fen-input").value.includes("f5"));
  await page.waitForFunction(() => /\d|win|loss/.test(document.querySelector("#an-score").textContent), null, { timeout: 20000 });
  assert.ok((await page.textContent("#an-pv")).length > 2);
  await shot("study");
  await page.click("#st-edit");
  await page.click("#ed-clear");
  await page.click('.palette button[data-tool="wk"]');
  await page.click(sq("d4"));
  await page.click('.palette button[data-tool="bm"]');
  await page.click(sq("d6"));
  await page.click(sq("a7"));
  assert.equal(await page.inputValue("#fen-input"), "W:WKd4:Bd6,a7");
  await shot("editor");
  // A man on its own back rank is refused by the server with the reason.
  await page.click('.palette button[data-tool="wm"]');
  await page.click(sq("h1"));
  await page.click("#ed-done");
  await page.waitForFunction(() => {
    const t = document.querySelector("#toast");
    return !t.hidden && /Invalid position.*h1/.test(t.textContent);
  });
  await page.click('.palette button[data-tool="x"]');
  await page.click(sq("h1"));
  await page.click("#ed-done");
  await page.waitForFunction(() => document.querySelector("#editor").hidden);
});

test("saved games survive a crash of the server", async () => {
  await crashAndRestart();
  await page.reload();
  await page.waitForSelector("#board .piece");
  await page.click("#tab-games");
  await page.waitForFunction(() => document.querySelectorAll("#games-body tr[data-id]").length >= 3);
  const rows = await page.$$eval("#games-body tr", (rs) => rs.map((r) => r.textContent));
  assert.ok(rows.some((r) => r.includes("Engine, level 1")), rows.join("\n"));
  // Resume the game against the engine: its moves are there.
  const row = page.locator("#games-body tr", { hasText: "Engine, level 1" }).first();
  await row.locator("button.resume").click();
  await waitForPlies(2);
  assert.equal((await moveTexts())[0], "d3-d4");
});

test("Turkish text and a phone-sized screen", async () => {
  await page.click("#lang-tr");
  await page.waitForFunction(() => document.querySelector("#btn-new").textContent === "Yeni oyun");
  await page.setViewportSize({ width: 390, height: 844 });
  await page.click("#tab-play");
  const box = await page.locator("#board").boundingBox();
  assert.ok(box.width <= 390 && box.width > 300, `board ${box.width}px wide`);
  await page.evaluate(() => window.scrollTo(0, 0));
  await shot("phone-tr");
  await page.click("#lang-en");
  await page.setViewportSize({ width: 1200, height: 820 });
});

test("no script errors on the page", () => {
  assert.deepEqual(pageErrors, []);
});
