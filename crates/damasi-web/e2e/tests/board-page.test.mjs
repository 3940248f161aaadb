// The board and the page (issue #11): settings kept per browser, addresses for every view
// (shareable, surviving a reload, with a working Back), phone layouts, the choice between
// capture routes that end on one square, the "DAMA!" notice, confirming moves, the keyboard
// help and the result with a rematch button under the board.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { waitUntilUp, URL_BASE } from "./server.mjs";
import { launch } from "./browser.mjs";
import { openApp, sq, clickMove, newGame, waitIdle } from "./page.mjs";

const SHOTS = process.env.DAMASI_SCREENSHOTS || fileURLToPath(new URL("../screenshots", import.meta.url));
let browser, page, errors;

before(async () => {
  await waitUntilUp();
  ({ browser, page, errors } = await openApp());
});

after(async () => {
  if (browser) await browser.close();
});

// A page in a browser of its own (nothing in its localStorage): what it shows comes from the
// address alone.
async function freshPage(url) {
  const b = await launch();
  const p = await b.context.newPage();
  p.setDefaultTimeout(15000);
  const errs = [];
  p.on("pageerror", (e) => errs.push(e.message));
  await p.goto(url);
  await p.waitForSelector("#board .piece");
  return { b, p, errs };
}

async function setSetting(p, id, value) {
  await p.click("#btn-settings");
  const el = p.locator("#" + id);
  if (typeof value === "boolean") await el.setChecked(value);
  else await el.selectOption(value);
  await p.click("#settings-dialog button[value=ok]");
}

const studyUrl = (fen, moves = "") => `${URL_BASE}/#/study?fen=${encodeURIComponent(fen)}${moves ? "&moves=" + encodeURIComponent(moves) : ""}`;

test("settings are kept in this browser and survive a reload", async () => {
  await setSetting(page, "set-board", "turkish");
  await setSetting(page, "set-pieces", "flat");
  await setSetting(page, "set-theme", "dark");
  await setSetting(page, "set-coords", false);
  await setSetting(page, "set-speed", "off");
  const look = () => page.evaluate(() => {
    const d = document.documentElement;
    return { board: d.dataset.boardStyle, pieces: d.dataset.pieces, theme: d.dataset.theme, noCoords: d.classList.contains("no-coords"),
      coordShown: getComputedStyle(document.querySelector(".coord")).display !== "none",
      bg: getComputedStyle(document.body).backgroundColor };
  });
  const before = await look();
  assert.deepEqual({ ...before, bg: undefined }, { board: "turkish", pieces: "flat", theme: "dark", noCoords: true, coordShown: false, bg: undefined });
  // The dark theme darkens the page for real.
  const [r, g, b] = before.bg.match(/\d+/g).map(Number);
  assert.ok(r + g + b < 200, before.bg);
  await page.reload();
  await page.waitForSelector("#board .piece");
  assert.deepEqual(await look(), before);
  await page.click("#btn-settings");
  assert.equal(await page.inputValue("#set-board"), "turkish");
  assert.equal(await page.isChecked("#set-coords"), false);
  await page.click("#settings-dialog button[value=ok]");
  // Back to the defaults for the other tests.
  await page.evaluate(() => localStorage.removeItem("damasi.settings"));
  await page.reload();
  await page.waitForSelector("#board .piece");
});

// WCAG contrast of two sRGB colours.
function contrast(a, b) {
  const lum = (c) => {
    const [r, g, bl] = c.map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
    return 0.2126 * r + 0.7152 * g + 0.0722 * bl;
  };
  const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p);
  return (x + 0.05) / (y + 0.05);
}

test("coordinates have AA contrast on every board style", async () => {
  for (const style of ["wood", "green", "blue", "turkish"]) {
    await setSetting(page, "set-board", style);
    const coords = await page.$$eval(".coord", (els) => els.map((el) => {
      const rgba = (s) => (s.match(/[\d.]+/g) || []).map(Number);
      return { fg: rgba(getComputedStyle(el).color), chip: rgba(getComputedStyle(el).backgroundColor), square: rgba(getComputedStyle(el.parentElement).backgroundColor) };
    }));
    assert.equal(coords.length, 16, style);
    for (const { fg, chip, square } of coords) {
      const alpha = chip.length === 4 ? chip[3] : 1;
      const under = [0, 1, 2].map((i) => chip[i] * alpha + square[i] * (1 - alpha));
      const ratio = contrast(fg.slice(0, 3), under);
      assert.ok(ratio >= 4.5, `${style}: contrast ${ratio.toFixed(2)}`);
    }
  }
  await setSetting(page, "set-board", "wood");
});

test("a move makes a sound (when sound is on) and moves can be confirmed first", async () => {
  await newGame(page, { opponent: "human" });
  await clickMove(page, "d3", "d4");
  assert.equal(await page.evaluate(() => document.documentElement.dataset.lastSound), "move");
  await setSetting(page, "set-confirm", true);
  await page.click(sq("e6"));
  await page.click(sq("e5"));
  await page.waitForSelector("#confirm-move:not([hidden])");
  assert.match(await page.textContent("#confirm-text"), /e6-e5/);
  assert.equal(await page.evaluate(() => game.plies.length), 1, "nothing is sent before the confirmation");
  await page.click("#confirm-yes");
  await page.waitForFunction(() => game.plies.length === 2);
  await setSetting(page, "set-confirm", false);
  // Sound off: no tone at all.
  await setSetting(page, "set-sound", false);
  await page.evaluate(() => { delete document.documentElement.dataset.lastSound; });
  await clickMove(page, "c3", "c4");
  assert.equal(await page.evaluate(() => document.documentElement.dataset.lastSound), undefined);
  await setSetting(page, "set-sound", true);
});

test("a game's address opens the same game in another browser, and survives a reload", async () => {
  const id = await page.evaluate(() => game.id);
  await page.waitForFunction((id) => location.hash === `#/game/${id}`, id);
  const url = page.url();
  const { b, p, errs } = await freshPage(url);
  try {
    await p.waitForFunction((id) => window.game && game.id === id && game.plies.length === 3, id);
    assert.deepEqual(await p.$$eval("#movelist button", (bs) => bs.map((x) => x.textContent)), ["d3-d4", "e6-e5", "c3-c4"]);
    await p.reload();
    await p.waitForFunction((id) => window.game && game.id === id, id);
    assert.equal(p.url(), url);
    assert.deepEqual(errs, []);
  } finally { await b.close(); }
});

test("a study position's address (FEN and moves) shows the same line elsewhere", async () => {
  await page.click("#tab-study");
  await page.fill("#fen-input", "W:Wa3,c3,e3:Ba6,c6,e6");
  await page.click("#fen-form button[type=submit]");
  await page.waitForFunction(() => document.querySelectorAll("#board .piece").length === 6 && !document.querySelector("#st-moves button"));
  await page.click(sq("c3"));
  await page.click(sq("c4"));
  await page.waitForFunction(() => document.querySelectorAll("#st-moves button").length === 1);
  await page.waitForFunction(() => location.hash.startsWith("#/study?") && location.hash.includes("moves="));
  const url = page.url();
  const fen = await page.inputValue("#fen-input");
  const { b, p, errs } = await freshPage(url);
  try {
    await p.waitForFunction((fen) => document.getElementById("fen-input").value === fen, fen);
    assert.equal(await p.getAttribute("#tab-study", "aria-selected"), "true");
    // The line is drawn once the server has listed the position's moves.
    await p.waitForFunction(() => document.querySelectorAll("#st-moves button").length > 0);
    assert.deepEqual(await p.$$eval("#st-moves button", (bs) => bs.map((x) => x.textContent)), ["c3-c4"]);
    assert.equal(await p.locator(`${sq("c4")}`).count(), 1);
    assert.equal(await p.locator("#board .piece.w[data-sq=c4]").count(), 1);
    assert.deepEqual(errs, []);
  } finally { await b.close(); }
});

test("the editor has an address too", async () => {
  const fen = "B:Wa3,Kh4:Bh7";
  const { b, p } = await freshPage(`${URL_BASE}/#/editor?fen=${encodeURIComponent(fen)}`);
  try {
    await p.waitForSelector("#editor:not([hidden])");
    assert.equal(await p.locator("#board .piece.w.k[data-sq=h4]").count(), 1);
    assert.equal(await p.locator("#board .piece.b[data-sq=h7]").count(), 1);
    assert.equal(await p.inputValue("#ed-side"), "B");
  } finally { await b.close(); }
});

test("browser Back returns through the views", async () => {
  await page.click("#tab-play");
  await page.waitForFunction(() => location.hash.startsWith("#/game/"));
  const gameHash = await page.evaluate(() => location.hash);
  await page.click("#tab-study");
  await page.waitForFunction(() => location.hash.startsWith("#/study"));
  const studyHash = await page.evaluate(() => location.hash);
  await page.click("#tab-games");
  await page.waitForFunction(() => location.hash === "#/games");
  await page.goBack();
  await page.waitForFunction((h) => location.hash === h && !document.getElementById("panel-study").hidden, studyHash);
  await page.goBack();
  await page.waitForFunction((h) => location.hash === h && !document.getElementById("panel-play").hidden, gameHash);
  await page.goForward();
  await page.waitForFunction(() => !document.getElementById("panel-study").hidden);
  await page.click("#tab-play");
});

test("two capture routes to one square: the person picks the route", async () => {
  // The white king on h2 can take h3 then f4 or e6 ... both ways end on b1 (and on a8).
  await page.goto(studyUrl("W:WKh2:Ba7,e6,h3,f4,b2"));
  await page.waitForFunction(() => !document.getElementById("panel-study").hidden && document.querySelectorAll("#board .piece").length === 6);
  await page.click(sq("h2"));
  await page.click(sq("b1"));
  await page.waitForSelector(`${sq("b1")}.routeend`);
  assert.match(await page.textContent("#status"), /Several captures end there/);
  const targets = await page.$$eval("#board .sq.target", (els) => els.map((e) => e.dataset.sq).sort());
  assert.deepEqual(targets, ["h4", "h6"]);
  assert.equal(await page.locator("#st-moves button").count(), 0, "nothing played yet");
  await page.click(sq("h6"));
  await page.waitForFunction(() => document.querySelectorAll("#st-moves button").length === 1);
  assert.equal(await page.textContent("#st-moves button"), "h2xh6xb6xb1");
  // The other route, picked the other way.
  await page.click("#st-undo");
  await page.waitForFunction(() => document.querySelectorAll("#board .piece").length === 6);
  await page.click(sq("h2"));
  await page.click(sq("b1"));
  await page.waitForSelector(`${sq("b1")}.routeend`);
  await page.click(sq("h4"));
  // The study keeps both: the first route as its line, this one as a variation, shown.
  await page.waitForFunction(() => document.querySelector("#st-moves button.cur") && document.querySelector("#st-moves button.cur").textContent === "h2xh4xb4xb1");
  assert.deepEqual(await page.$$eval("#st-moves button", (bs) => bs.map((b) => b.textContent)), ["h2xh6xb6xb1", "h2xh4xb4xb1"]);
});

test("a man crowned shows the federation's DAMA! notice", async () => {
  await page.goto(studyUrl("W:Wc7,a2:Bh6,g6"));
  await page.waitForFunction(() => document.querySelectorAll("#board .piece").length === 4);
  await page.click(sq("c7"));
  await page.click(sq("c8"));
  await page.waitForSelector("#dama:not([hidden])");
  assert.equal(await page.textContent("#dama"), "DAMA!");
  await page.waitForSelector("#board .piece.w.k[data-sq=c8]");
  await page.waitForSelector("#dama", { state: "hidden", timeout: 5000 });
});

test("? opens the keyboard help; levels have names", async () => {
  await page.click("#tab-play");
  await page.locator("body").press("?");
  await page.waitForFunction(() => document.getElementById("help-dialog").open);
  assert.match(await page.textContent("#help-dialog"), /Flip the board/);
  await page.keyboard.press("Escape");
  await page.waitForFunction(() => !document.getElementById("help-dialog").open);
  await page.click("#btn-new");
  await page.check('input[name="opp"][value="engine"]');
  await page.fill("#new-level", "10");
  assert.equal(await page.textContent("#new-level-out"), "10 · grandmaster");
  await page.fill("#new-level", "1");
  assert.equal(await page.textContent("#new-level-out"), "1 · beginner");
  await page.click("#new-dialog button[value=cancel]");
});

test("the result stands under the board, with a rematch", async () => {
  const id = await newGame(page, { opponent: "engine", level: 1, color: "white" });
  await page.click("#btn-resign");
  await page.waitForSelector("#banner:not([hidden])");
  const [boardBox, bannerBox] = [await page.locator("#board").boundingBox(), await page.locator("#banner").boundingBox()];
  assert.ok(bannerBox.y >= boardBox.y + boardBox.height - 1, "the result does not cover the board");
  await page.click("#btn-rematch");
  await page.waitForFunction((id) => game && game.id !== id, id);
  // Against the engine the colours change.
  assert.equal(await page.evaluate(() => game.white.kind), "engine");
  assert.equal(await page.evaluate(() => game.black.kind), "human");
  await waitIdle(page);
});

test("a premove entered while the engine thinks is played when the turn comes", async () => {
  await newGame(page, { opponent: "engine", level: 10, color: "black" });
  await page.waitForSelector("#status.thinking");
  await page.click(sq("e6"));
  await page.click(sq("e5"));
  await page.waitForSelector(`${sq("e5")}.premove`);
  assert.equal(await page.evaluate(() => game.plies.length), 0, "entered before the engine moved");
  await page.waitForFunction(() => game.plies.length >= 2, null, { timeout: 30000 });
  assert.equal(await page.evaluate(() => game.plies[1].move.landing), "e6-e5");
  await waitIdle(page);
});

// Nothing wider than the screen, and (on the play view) the whole board on it.
async function fits(p, name, { board = true } = {}) {
  const m = await p.evaluate(() => {
    const r = document.getElementById("board").getBoundingClientRect();
    return { sw: document.scrollingElement.scrollWidth, w: innerWidth, h: innerHeight, top: r.top, left: r.left, right: r.right, bottom: r.bottom };
  });
  assert.ok(m.sw <= m.w, `${name}: the page is ${m.sw}px wide on a ${m.w}px screen`);
  // Boxes that scroll on their own (the games table) must not hide anything either.
  const hidden = await p.$$eval(".tablewrap, .palette, .btnrow", (els) => els.filter((e) => e.offsetParent && e.scrollWidth > e.clientWidth + 1).map((e) => e.className));
  assert.deepEqual(hidden, [], `${name}: cut off`);
  if (board) {
    assert.ok(m.top >= 0 && m.left >= 0 && m.right <= m.w && m.bottom <= m.h, `${name}: the board is not on the screen: ${JSON.stringify(m)}`);
  }
  mkdirSync(SHOTS, { recursive: true });
  await p.evaluate(() => { document.getElementById("toast").hidden = true; });
  await p.screenshot({ path: join(SHOTS, `phone-${name}.png`) });
}

for (const [w, h, name] of [[390, 844, "portrait"], [844, 390, "landscape"]]) {
  test(`phone ${name} (${w}x${h}): nothing overflows, the board is on the screen`, async () => {
    await page.setViewportSize({ width: w, height: h });
    try {
      await page.click("#tab-play");
      await page.waitForSelector("#board .piece");
      await page.evaluate(() => window.scrollTo(0, 0));
      await fits(page, `${name}-play`);
      await page.click("#tab-games");
      await page.waitForSelector("#games-body tr");
      await fits(page, `${name}-games`, { board: false });
      await page.click("#tab-study");
      await page.click("#st-edit");
      await page.waitForSelector("#editor:not([hidden])");
      await page.evaluate(() => window.scrollTo(0, 0));
      await fits(page, `${name}-editor`, { board: name === "landscape" });
      await page.click("#ed-done");
      await page.waitForSelector("#editor", { state: "hidden" });
    } finally {
      await page.setViewportSize({ width: 1200, height: 820 });
    }
  });
}

test("no script errors on the page", () => {
  assert.deepEqual(errors, []);
});
