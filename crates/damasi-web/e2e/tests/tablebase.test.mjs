// Endgame tables built while the server runs (issue #33, item 7): the Study view's tablebase
// panel is hidden while the server has no tables, and after `damasi tb build` into the
// server's data directory it shows at the next position, no restart, with the distance to
// conversion ("win in 3").
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { waitUntilUp, URL_BASE } from "./server.mjs";
import { openApp } from "./page.mjs";

const TABLES = join(process.env.DAMASI_DATA, "tablebases");
let browser, page, errors;

before(async () => {
  await waitUntilUp();
  rmSync(TABLES, { recursive: true, force: true });
  ({ browser, page, errors } = await openApp());
});

after(async () => {
  if (browser) await browser.close();
  // The other tests run with a server without tables.
  rmSync(TABLES, { recursive: true, force: true });
});

// Two kings against one: h1-h8 shuts the lone king in on a8, three plies to its capture.
const FEN = "W:WKa1,Kh1:BKa8";

async function openStudy(fen) {
  await page.goto(URL_BASE + "/#/study?fen=" + encodeURIComponent(fen));
  await page.waitForFunction(() => location.hash.startsWith("#/study"));
}

// Opens a position and waits for its own tablebase answer to be shown (the panel keeps the last
// position's value, marked busy, until then).
async function studyWithTables(fen) {
  const answered = page.waitForResponse((r) => r.url().includes("/api/tablebase?fen=" + encodeURIComponent(fen)));
  await openStudy(fen);
  await answered;
  await page.waitForSelector("#tb-panel:not([hidden]):not([aria-busy])");
}

test("tables built while the server runs show in Study, with the distance to conversion", async () => {
  // The request for the position's tablebase value is answered "no tables": no panel.
  const asked = page.waitForResponse((r) => r.url().includes("/api/tablebase"));
  await openStudy(FEN);
  assert.equal((await asked).status(), 409);
  assert.equal(await page.isHidden("#tb-panel"), true);

  execFileSync(process.env.DAMASI_BIN, ["tb", "build", "--pieces", "3", "--dir", TABLES], { stdio: "ignore" });

  await openStudy("W:WKa1,Kh1:BKb8");
  await studyWithTables(FEN);
  assert.equal(await page.textContent("#tb-value"), "win in 3");
  const first = await page.textContent("#tb-moves li:first-child button");
  assert.equal(first, "h1-h8 win in 3");
  assert.equal(await page.isVisible("#tb-help"), true);

  // In Turkish.
  await page.click("#lang-tr");
  await openStudy("W:WKa1,Kh1:BKb8");
  await studyWithTables(FEN);
  await page.waitForFunction(() => document.getElementById("tb-value").textContent === "3 hamlede kazanır");
  await page.click("#lang-en");
  assert.deepEqual(errors, []);
});
