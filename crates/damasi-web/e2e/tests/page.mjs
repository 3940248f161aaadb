// Helpers shared by the browser tests: open the page, start games through the page's own
// dialog, and wait for what the page shows (never for fixed times).
import { launch } from "./browser.mjs";
import { URL_BASE } from "./server.mjs";

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
  await page.selectOption("#new-time", time);
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
