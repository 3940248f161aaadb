// Helpers shared by the browser tests: open the page, start games through the page's own
// dialog, and wait for what the page shows (never for fixed times).
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { launch } from "./browser.mjs";
import { URL_BASE } from "./server.mjs";

const SHOTS = process.env.DAMASI_SCREENSHOTS || "";

export const sq = (name) => `#board .sq[data-sq="${name}"]`;

// A browser with one page on the app; every confirm() is accepted and its text kept.
export async function openApp() {
  const browser = await launch();
  const page = browser.context.pages()[0] || (await browser.context.newPage());
  const dialogs = [];
  const errors = [];
  page.on("dialog", (d) => { dialogs.push(d.message()); d.accept(); });
  page.on("pageerror", (e) => errors.push(e.message));
  page.setDefaultTimeout(15000);
  await page.goto(URL_BASE + "/");
  await page.waitForSelector("#board .piece");
  return { browser, page, dialogs, errors };
}

export const moveTexts = (page) => page.$$eval("#movelist button", (bs) => bs.map((b) => b.textContent));

export async function waitForPlies(page, n, timeout = 20000) {
  await page.waitForFunction((n) => document.querySelectorAll("#movelist button").length === n, n, { timeout });
}

// The page is waiting for nothing: no engine thought, no reconnection.
export async function waitIdle(page, timeout = 20000) {
  await page.waitForFunction(() => !document.querySelector("#status.thinking, #status.offline"), null, { timeout });
}

export async function newGame(page, { opponent = "engine", level = 1, color = "white", time = "", fromStudy = false } = {}) {
  await page.click("#tab-play");
  const previous = await page.evaluate(() => (game ? game.id : 0));
  await page.click("#btn-new");
  await page.check(`input[name="opp"][value="${opponent}"]`);
  if (opponent === "engine") {
    await page.fill("#new-level", String(level));
    await page.selectOption("#new-color", color);
  }
  // With the engine in the browser games have no clock: the choice is put away.
  if (await page.isEnabled("#new-time")) await page.selectOption("#new-time", time);
  if (fromStudy) await page.check("#new-from-fen");
  else if (await page.isVisible("#new-from-fen")) await page.uncheck("#new-from-fen");
  await page.click("#new-ok");
  await page.waitForFunction((prev) => !document.querySelector("#new-dialog").open && game && game.id !== prev, previous);
  return page.evaluate(() => game.id);
}

// Plays `from`-`to` by two clicks and waits until the server has it.
export async function clickMove(page, from, to) {
  const n = await page.evaluate(() => game.plies.length);
  await page.click(sq(from));
  await page.click(sq(to));
  await page.waitForFunction((n) => game.plies.length > n, n);
}

// The toast's text once it shows something matching `re`.
export async function toastMatching(page, re) {
  await page.waitForFunction((src) => {
    const t = document.querySelector("#toast");
    return !t.hidden && new RegExp(src).test(t.textContent);
  }, re.source);
  return page.textContent("#toast");
}

// A JSON request straight to the server, as another client would send it.
export async function apiCall(method, path, body) {
  const res = await fetch(URL_BASE + path, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

// A page in a browser of its own (nothing in its localStorage), opened at `hash`; the browser
// is added to `open` for the test file to close. Moves are shown at once: the tests wait for
// what the page shows, not for animations.
export async function freshPage(hash, open, timeout = 15000) {
  const b = await launch();
  open.push(b);
  const p = await b.context.newPage();
  p.setDefaultTimeout(timeout);
  const errors = [];
  p.on("pageerror", (e) => errors.push(e.message));
  await p.addInitScript(() => { if (!localStorage.getItem("damasi.settings")) localStorage.setItem("damasi.settings", JSON.stringify({ speed: "off" })); });
  await p.goto(URL_BASE + "/" + hash);
  return { p, errors };
}

// A screenshot named `name` into $DAMASI_SCREENSHOTS, when it is set.
export async function shotOf(p, name) {
  if (!SHOTS) return;
  mkdirSync(SHOTS, { recursive: true });
  await p.screenshot({ path: join(SHOTS, name + ".png") });
}

// Plays a move given in landing notation by clicking its start and each landing square.
export async function playLanding(p, landing) {
  const squares = landing.replace(/=K$/, "").split(/[-x]/);
  await p.waitForSelector(`#board .piece.movable[data-sq="${squares[0]}"]`);
  for (const s of squares) await p.click(sq(s));
}
