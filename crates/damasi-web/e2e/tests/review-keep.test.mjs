// Game review (issue #33 item 10): a move equal to the engine's is the "best move"; the board
// is turned for the side the person played against the engine (and put back after); the
// analysis is kept in the browser, so another visit does not redo it.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { waitUntilUp } from "./server.mjs";
import { apiCall, freshPage as openPage } from "./page.mjs";

const open = [];
const freshPage = (hash) => openPage(hash, open);

before(async () => { await waitUntilUp(); });
after(async () => { for (const b of open) await b.close(); });

// Waits until game `id` has `n` plies (the engine's moves come by themselves).
async function waitPlies(id, n) {
  for (let k = 0; k < 200; k++) {
    const g = (await apiCall("GET", `/api/games/${id}`)).body;
    if (g.plies.length >= n && g.engine.state === "idle") return g;
    await sleep(100);
  }
  throw new Error(`game ${id} never reached ${n} plies`);
}

test("against the engine as Black: the review turns the board, keeps its analysis for the next visit", async () => {
  const made = await apiCall("POST", "/api/games", { white: { kind: "engine", level: 1 }, black: { kind: "human" } });
  const id = made.body.id;
  await apiCall("POST", `/api/games/${id}/engine`);
  let g = await waitPlies(id, 1);
  await apiCall("POST", `/api/games/${id}/move`, { move: g.legal[0].landing });
  g = await waitPlies(id, 3);
  assert.equal((await apiCall("POST", `/api/games/${id}/resign`, { side: "black" })).status, 200);

  const { p, errors } = await freshPage(`#/review/${id}`);
  const analyses = [];
  p.on("request", (r) => { if (r.url().endsWith("/api/analyze")) analyses.push(r.url()); });
  await p.waitForSelector("#rv-body:not([hidden])");
  assert.equal(await p.evaluate(() => board.flipped), true, "Black, the person, plays up the board");
  await p.waitForSelector('#rv-progress[data-done="true"]', { timeout: 60000 });
  assert.ok(analyses.length > 0, "this first visit analyses the game");
  // Leaving the review puts the board back.
  await p.click("#tab-games");
  await p.waitForFunction(() => board.flipped === false);
  // Another visit: the analysis is there at once, nothing is asked again.
  analyses.length = 0;
  await p.evaluate((id) => history.replaceState(null, "", `#/review/${id}`), id);
  await p.reload();
  await p.waitForSelector('#rv-progress[data-done="true"]');
  assert.equal(await p.textContent("#rv-progress-text"), "Analysis complete");
  assert.equal(await p.evaluate(() => board.flipped), true);
  await p.waitForLoadState("networkidle");
  assert.deepEqual(analyses, []);
  assert.deepEqual(errors, []);
});

test("a move equal to the engine's is the best move", async () => {
  // The capture is forced: the only legal move, so the engine's too.
  const made = await apiCall("POST", "/api/games", { fen: "W:Wd4,a2:Bd5,h7" });
  const id = made.body.id;
  assert.equal((await apiCall("POST", `/api/games/${id}/move`, { move: "d4xd6" })).status, 200);
  const { p, errors } = await freshPage(`#/review/${id}`);
  await p.waitForSelector('#rv-progress[data-done="true"]', { timeout: 60000 });
  await p.click("#rv-moves button[data-ply='1']");
  await p.waitForFunction(() => document.querySelector("#rv-comment").textContent === "d4xd6 · best move");
  assert.equal(await p.textContent("#status"), "Move 1, White");
  assert.deepEqual(errors, []);
});
