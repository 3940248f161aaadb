// A long game in the browser: the page gets only the newest page of its moves, fetches the
// earlier ones when the reader goes back to them, and keeps them while the game goes on.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { waitUntilUp } from "./server.mjs";
import { openApp, apiCall } from "./page.mjs";

const root = fileURLToPath(new URL("../../../../", import.meta.url));
const PLIES = 1200;
let browser, page, errors, pdn;

before(async () => {
  // Written first: a build of the example must not leave the test's connections idle.
  pdn = longGamePdn(PLIES);
  await waitUntilUp();
  ({ browser, page, errors } = await openApp());
});

after(async () => {
  if (browser) await browser.close();
});

// A legal game of `plies` king moves (crates/damasi-web/examples/long_game.rs, built by
// e2e/run).
function longGamePdn(plies) {
  const bin = join(root, "target/release/examples/long_game");
  if (existsSync(bin)) return execFileSync(bin, [String(plies)], { encoding: "utf8", maxBuffer: 64 << 20 });
  return execFileSync("cargo", ["run", "--release", "--quiet", "-p", "damasi-web", "--example", "long_game", "--", String(plies)],
    { cwd: root, encoding: "utf8", maxBuffer: 64 << 20 });
}

const shownPlies = () => page.$$eval("#movelist button[data-ply]", (bs) => bs.map((b) => Number(b.dataset.ply)));

test("a long game's moves are fetched a page at a time", async () => {
  const imported = await apiCall("POST", "/api/pdn/import", { pdn });
  assert.equal(imported.status, 201, JSON.stringify(imported.body));
  const id = imported.body.ids[0];
  const server = (await apiCall("GET", `/api/games/${id}`)).body;
  const pageSize = server.plies.length;
  assert.ok(pageSize < PLIES, `the server sends a page (${pageSize} plies), not the whole game`);

  await page.click("#tab-games");
  await page.click(`#games-body tr[data-id="${id}"] button.resume`);
  await page.waitForFunction((id) => game && game.id === id, id);
  assert.equal(await page.evaluate(() => game.plies.length), PLIES, "the page knows how long the game is");
  let shown = await shownPlies();
  assert.equal(shown.length, pageSize, "only the newest page is listed");
  assert.equal(shown[shown.length - 1], PLIES);
  assert.equal(shown[0], PLIES - pageSize + 1);

  // Earlier moves, a page at a time, until the first move.
  for (let n = pageSize; n < PLIES; n = Math.min(PLIES, n + pageSize)) {
    await page.click("#movelist button.earlier");
    await page.waitForFunction((n) => document.querySelectorAll("#movelist button[data-ply]").length > n, n);
  }
  shown = await shownPlies();
  assert.deepEqual(shown, Array.from({ length: PLIES }, (_, i) => i + 1), "every move, in order");
  assert.equal(await page.$("#movelist button.earlier"), null, "nothing earlier to fetch");

  // A move played (here through the API, as another tab would) keeps the earlier pages.
  const before = (await apiCall("GET", `/api/games/${id}?limit=0`)).body;
  const m = before.legal[0].landing;
  const played = await apiCall("POST", `/api/games/${id}/move`, { move: m });
  assert.equal(played.status, 200, JSON.stringify(played.body));
  await page.waitForFunction((n) => game.plies.length === n, PLIES + 1);
  await page.waitForFunction((n) => document.querySelectorAll("#movelist button[data-ply]").length === n, PLIES + 1);

  // After a reload only the newest page is there again; going to the first move fetches it.
  await page.reload();
  await page.waitForFunction((id) => game && game.id === id && document.querySelectorAll("#movelist button[data-ply]").length > 0, id);
  assert.equal((await shownPlies()).length, pageSize);
  await page.keyboard.press("Home");
  await page.keyboard.press("ArrowRight");
  await page.waitForFunction(() => viewPly === 1);
  const first = await page.evaluate(() => game.plies[0].move.landing);
  assert.equal(first, (await apiCall("GET", `/api/games/${id}?from=0&limit=1`)).body.plies[0].move.landing);
  await page.waitForSelector('#movelist button[data-ply="1"].cur');
  assert.deepEqual(errors, []);
});
