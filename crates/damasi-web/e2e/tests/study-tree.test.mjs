// Study with variations and engine lines (issue #11): a move that differs from the line's
// continuation makes a variation, shown in parentheses and clickable; the keys move along the
// line and between variations; the address keeps the whole tree, so a reload and a new page
// show the same study at the same move; the engine's analysis shows several lines, deepening,
// and a line's move plays into the tree.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { waitUntilUp, URL_BASE } from "./server.mjs";
import { launch } from "./browser.mjs";
import { openApp, sq } from "./page.mjs";

const START = "W:Wa2,b2,c2,d2,e2,f2,g2,h2,a3,b3,c3,d3,e3,f3,g3,h3:Ba6,b6,c6,d6,e6,f6,g6,h6,a7,b7,c7,d7,e7,f7,g7,h7";
const SHOTS = process.env.DAMASI_SCREENSHOTS || "";
let browser, page, errors;

// A screenshot when DAMASI_SCREENSHOTS names a directory.
async function shot(name) {
  if (!SHOTS) return;
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, name + ".png") });
}

before(async () => {
  await waitUntilUp();
  ({ browser, page, errors } = await openApp());
});

after(async () => {
  if (browser) await browser.close();
});

// What the move list shows: main-line moves as they are, variation moves in brackets, the
// shown move starred.
const treeShown = (p) => p.$$eval("#st-moves button", (bs) => bs.map((b) =>
  (b.classList.contains("varmove") ? `[${b.textContent}]` : b.textContent) + (b.classList.contains("cur") ? "*" : "")));
const current = (p) => p.$eval("#st-moves button.cur", (b) => b.textContent).catch(() => null);

// Plays a move by two clicks; it is new in the tree, so the list grows by one.
async function play(from, to) {
  const n = await page.locator("#st-moves button").count();
  await page.click(sq(from));
  await page.click(sq(to));
  await page.waitForFunction(([n, to]) => document.querySelectorAll("#st-moves button").length === n + 1
    && document.querySelector("#st-moves button.cur") && document.querySelector("#st-moves button.cur").textContent.endsWith(to), [n, to]);
}

// A key pressed on the page (not on the board, which has keys of its own).
async function key(k) {
  await page.click("h1");
  await page.keyboard.press(k);
}

// Waits until the board and the address show the move `text` (null: the start).
async function shows(p, text) {
  await p.waitForFunction((text) => {
    const cur = document.querySelector("#st-moves button.cur");
    return (cur ? cur.textContent : null) === text && location.hash.startsWith("#/study?");
  }, text);
}

test("a different move after going back makes a variation; clicks and keys move between lines", async () => {
  await page.click("#tab-study");
  await page.fill("#fen-input", START);
  await page.click("#fen-form button[type=submit]");
  await page.waitForFunction(() => document.querySelectorAll("#board .piece").length === 32 && !document.querySelector("#st-moves button"));
  await play("d3", "d4");
  await play("e6", "e5");
  await play("c3", "c4");
  await play("f6", "f5");
  assert.deepEqual(await treeShown(page), ["d3-d4", "e6-e5", "c3-c4", "f6-f5*"]);
  // Back two moves, then another move: a variation, in parentheses, the shown move.
  await key("ArrowLeft");
  await key("ArrowLeft");
  await shows(page, "e6-e5");
  await play("a3", "a4");
  assert.deepEqual(await treeShown(page), ["d3-d4", "e6-e5", "c3-c4", "[a3-a4]*", "f6-f5"]);
  assert.match(await page.textContent("#st-moves li.vars"), /^\(2\.a3-a4\)$/);
  assert.equal(await page.locator("#board .piece.w[data-sq=a4]").count(), 1);
  // A reply in the variation, then a variation inside it.
  await play("a6", "a5");
  await key("ArrowLeft");
  await shows(page, "a3-a4");
  await play("h6", "h5");
  assert.deepEqual(await treeShown(page), ["d3-d4", "e6-e5", "c3-c4", "[a3-a4]", "[a6-a5]", "[h6-h5]*", "f6-f5"]);
  assert.match(await page.textContent("#st-moves li.vars"), /^\(2\.a3-a4 a6-a5 \(2…h6-h5\)\)$/);

  // Clicks: the main line's last move, then the variation's first.
  await page.click("#st-moves button:text-is('f6-f5')");
  await shows(page, "f6-f5");
  assert.equal(await page.locator("#board .piece.b[data-sq=f5]").count(), 1);
  assert.equal(await page.locator("#board .piece.w[data-sq=a4]").count(), 0);
  await page.click("#st-moves button.varmove:text-is('a3-a4')");
  await shows(page, "a3-a4");
  assert.equal(await page.locator("#board .piece.w[data-sq=a4]").count(), 1);
  assert.equal(await page.locator("#board .piece.w[data-sq=c4]").count(), 0);
  // Keys: right follows the line's main continuation, up and down switch between the
  // alternatives, left goes back.
  await key("ArrowRight");
  await shows(page, "a6-a5");
  await key("ArrowDown");
  await shows(page, "h6-h5");
  await key("ArrowUp");
  await shows(page, "a6-a5");
  await key("ArrowLeft");
  await key("ArrowUp");
  await shows(page, "c3-c4");
  await key("End");
  await shows(page, "f6-f5");
  await key("Home");
  await shows(page, null);
  assert.deepEqual(errors, []);
});

test("the address keeps the tree and the move shown: a reload, a new page, Back", async () => {
  await page.click("#st-moves button.varmove:text-is('h6-h5')");
  await shows(page, "h6-h5");
  const want = await treeShown(page);
  const hash = await page.evaluate(() => location.hash);
  const q = new URLSearchParams(hash.slice(hash.indexOf("?") + 1));
  assert.equal(q.get("moves"), "d3-d4,e6-e5,a3-a4,h6-h5");
  assert.equal(q.get("tree"), "d3-d4,e6-e5,c3-c4,(a3-a4,a6-a5,(h6-h5)),f6-f5");
  const fen = await page.inputValue("#fen-input");

  await page.reload();
  await page.waitForSelector("#board .piece");
  await shows(page, "h6-h5");
  assert.deepEqual(await treeShown(page), want);
  assert.equal(await page.inputValue("#fen-input"), fen);

  // The same address in another browser (nothing in its storage).
  const other = await launch();
  try {
    const p = await other.context.newPage();
    p.setDefaultTimeout(15000);
    const errs = [];
    p.on("pageerror", (e) => errs.push(e.message));
    await p.goto(URL_BASE + "/" + hash);
    await p.waitForSelector("#board .piece");
    await shows(p, "h6-h5");
    assert.deepEqual(await treeShown(p), want);
    assert.equal(await p.inputValue("#fen-input"), fen);
    assert.equal(await p.locator("#board .piece.b[data-sq=h5]").count(), 1);
    assert.equal(await p.getAttribute("#tab-study", "aria-selected"), "true");
    assert.deepEqual(errs, []);
  } finally { await other.close(); }

  // Another view, then Back: the same study.
  await page.click("#tab-games");
  await page.waitForFunction(() => location.hash === "#/games");
  await page.goBack();
  await page.waitForFunction(() => !document.getElementById("panel-study").hidden);
  await shows(page, "h6-h5");
  assert.deepEqual(await treeShown(page), want);
});

test("make a variation the main line, delete from a move, the study as PDN", async () => {
  await page.click("#st-moves button.varmove:text-is('a6-a5')");
  await shows(page, "a6-a5");
  assert.equal(await page.isDisabled("#st-promote"), false);
  await page.click("#st-promote");
  await page.waitForFunction(() => document.querySelector("#st-promote").disabled);
  assert.deepEqual(await treeShown(page), ["d3-d4", "e6-e5", "a3-a4", "[c3-c4]", "[f6-f5]", "a6-a5*", "[h6-h5]"]);
  const pdn = await page.evaluate(async () => (await import("/js/views/study.js")).studyPdn());
  assert.match(pdn, /\[GameType "30"\]/);
  assert.ok(pdn.includes("1. d3-d4 e6-e5 2. a3-a4 (2. c3-c4 f6-f5) 2... a6-a5 (2... h6-h5) *"), pdn);
  await page.click("#st-moves button.varmove:text-is('c3-c4')");
  await shows(page, "c3-c4");
  await page.click("#st-delete");
  await shows(page, "e6-e5");
  assert.deepEqual(await treeShown(page), ["d3-d4", "e6-e5*", "a3-a4", "a6-a5", "[h6-h5]"]);
});

test("engine lines: several, deepening, drawn as arrows, a move of a line plays into the tree", async () => {
  await key("Home");
  await shows(page, null);
  assert.equal(await page.isHidden("#an-lines"), true);
  await page.click("#an-toggle");
  assert.equal(await page.getAttribute("#an-toggle", "aria-pressed"), "true");
  await page.waitForFunction(() => document.querySelectorAll("#an-lines li").length >= 2, null, { timeout: 20000 });
  // The panel, the arrows' data and the drawn arrows, read at one moment: the analysis goes on
  // deepening and a deeper answer may change the lines between two separate reads.
  const snapshot = () => page.evaluate(() => ({
    lines: [...document.querySelectorAll("#an-lines li")].map((li) => ({
      score: li.querySelector(".an-line-score").textContent,
      moves: [...li.querySelectorAll("button")].map((b) => b.textContent),
    })),
    arrows: document.querySelector("#board").dataset.engineArrows,
    drawn: [...document.querySelectorAll("#board svg.shapes polyline.arrow")].map((a) => a.dataset.from + "-" + a.dataset.to + ":" + a.dataset.brush),
  }));
  const { lines, arrows, drawn } = await snapshot();
  for (const l of lines) assert.match(l.score, /^[+-]?\d+\.\d\d$|win|loss/);
  const firsts = lines.map((l) => l.moves[0]);
  assert.equal(new Set(firsts).size, firsts.length, `distinct first moves: ${firsts}`);
  // The arrows' data: the lines' first moves, best first.
  assert.deepEqual(arrows.split(" "), firsts);
  // Drawn over the board: one arrow a line, the best one blue.
  assert.deepEqual(drawn, firsts.map((f, i) => f + ":" + (i === 0 ? "blue" : "yellow")));
  await shot("study-lines");
  // It keeps deepening: a later answer goes deeper than the first.
  const depthOf = () => page.$eval("#an-lines li .muted", (s) => Number(/\d+/.exec(s.textContent)[0]));
  const first = await depthOf();
  await page.waitForFunction((d) => {
    const s = document.querySelector("#an-lines li .muted");
    return s && Number(/\d+/.exec(s.textContent)[0]) > d;
  }, first, { timeout: 20000 });
  // The second line's first move, played from the panel: a new move of the tree, shown. Found
  // and clicked in one step, since the lines may have changed with the deeper answer.
  const second = await page.evaluate(() => {
    const b = /** @type {HTMLButtonElement} */ (document.querySelector("#an-lines li:nth-child(2) button"));
    b.click();
    return b.textContent;
  });
  await shows(page, second);
  // Moving restarts the analysis for the new position; turning it off hides it and the arrows.
  await page.waitForFunction(() => document.querySelectorAll("#an-lines li").length >= 2, null, { timeout: 20000 });
  await page.click("#an-toggle");
  assert.equal(await page.isHidden("#an-lines"), true);
  assert.equal(await page.$eval("#board", (b) => b.dataset.engineArrows), "");
  assert.equal(await page.$$eval("#board svg.shapes polyline.arrow", (as) => as.length), 0);
  assert.deepEqual(errors, []);
});
