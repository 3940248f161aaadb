// Learn and puzzles (issue #11): a course step solved after a wrong try, progress kept in this
// browser across a reload, a federation example solved, and a puzzle solved to the end with
// the player's rating changing; every view opened from its address in a fresh page.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { waitUntilUp } from "./server.mjs";
import { sq, apiCall, freshPage as openPage, shotOf as shot, playLanding as play } from "./page.mjs";

const PUZZLES = JSON.parse(readFileSync(new URL("../../learn/puzzles.json", import.meta.url), "utf8")).puzzles;
const open = [];
const freshPage = (hash) => openPage(hash, open);

before(async () => { await waitUntilUp(); });
after(async () => { for (const b of open) await b.close(); });

test("a course step: a wrong try shows its feedback and the position again; the right move is ticked and kept", async () => {
  const course = (await apiCall("GET", "/api/learn/course")).body;
  const step = course.lessons[0].steps[0];
  assert.equal(step.id, "men-forward");
  const { p, errors } = await freshPage("#/learn/men-forward");
  await p.waitForFunction((title) => document.querySelector("#learn-title").textContent === title, step.title.en);
  assert.equal(await p.textContent("#learn-text"), step.text.en);
  // Every lesson and the federation's examples are listed.
  assert.equal(await p.locator("#learn-list ol.steps").count(), course.lessons.length + 1);
  assert.equal(await p.locator("#learn-list li").count(), course.lessons.reduce((n, l) => n + l.steps.length, 0) + 10);
  // d3-c3 is legal but not what the step asks.
  await play(p, "d3-c3");
  await p.waitForSelector("#learn-feedback.wrong:not([hidden])");
  assert.equal(await p.textContent("#learn-feedback"), step.wrong.en);
  await p.waitForFunction(() => document.querySelector("#status").textContent === "Not that one: try again");
  // The man stands on d3 again, free to move.
  await p.waitForSelector(`#board .piece.movable[data-sq="d3"]`);
  const [piece, square] = [await p.locator(`#board .piece[data-sq="d3"]`).boundingBox(), await p.locator(sq("d3")).boundingBox()];
  const centre = (b) => [b.x + b.width / 2, b.y + b.height / 2];
  const [pc, sc] = [centre(piece), centre(square)];
  assert.ok(Math.abs(pc[0] - sc[0]) < 3 && Math.abs(pc[1] - sc[1]) < 3, JSON.stringify([piece, square]));
  assert.equal(await p.locator("#learn-list li.done").count(), 0);
  await shot(p, "learn");
  await play(p, step.accepted[0]);
  await p.waitForSelector("#learn-feedback.right:not([hidden])");
  assert.match(await p.textContent("#learn-feedback"), /Well done/);
  await p.waitForSelector('#learn-list li.done a[data-step="men-forward"]');
  assert.match(await p.textContent("#learn-progress"), /^1 of 39 done$/);
  // Next step: its address and its position.
  await p.click("#learn-next");
  await p.waitForFunction(() => location.hash === "#/learn/men-sideways");
  await p.waitForFunction((title) => document.querySelector("#learn-title").textContent === title, course.lessons[0].steps[1].title.en);
  assert.ok(await p.isHidden("#learn-feedback"));
  // The progress survives a reload, which opens the same step.
  await p.reload();
  await p.waitForFunction((title) => document.querySelector("#learn-title").textContent === title, course.lessons[0].steps[1].title.en);
  await p.waitForSelector('#learn-list li.done a[data-step="men-forward"]');
  assert.equal(await p.locator("#learn-list li.done").count(), 1);
  assert.equal(await p.getAttribute("#tab-learn", "aria-selected"), "true");
  assert.deepEqual(errors, []);
});

test("a federation example: the one legal maximum capture is found", async () => {
  const ex = (await apiCall("GET", "/api/learn/examples")).body.examples[0];
  const { p, errors } = await freshPage("#/learn/" + ex.id);
  await p.waitForFunction((title) => document.querySelector("#learn-title").textContent === title, ex.title.en);
  assert.match(await p.textContent("#learn-list"), /Federation examples/);
  await play(p, ex.accepted[0]);
  await p.waitForSelector("#learn-feedback.right:not([hidden])");
  assert.ok((await p.textContent("#learn-feedback")).includes(ex.explanation.en));
  await p.waitForSelector(`#learn-list li.done a[data-step="${ex.id}"]`);
  // The board shows the position after the capture: the captured pieces are gone.
  for (const s of ex.captured) assert.equal(await p.locator(`#board .piece[data-sq="${s}"]`).count(), 0, s);
  assert.deepEqual(errors, []);
});

test("a puzzle solved to the end: the reply is played, the rating goes up", async () => {
  const pz = PUZZLES.find((q) => q.solution.length === 3);
  const { p, errors } = await freshPage("#/puzzle/" + pz.id);
  await p.waitForFunction((r) => document.querySelector("#pz-rating").textContent === String(r), pz.rating);
  assert.equal(await p.textContent("#pz-player"), "1500");
  assert.equal(await p.getAttribute("#tab-puzzle", "aria-selected"), "true");
  // The solving side plays up the board.
  assert.equal(await p.evaluate(() => board.flipped), pz.side === "black");
  await shot(p, "puzzle");
  await play(p, pz.solution[0]);
  // The opponent's reply lands on the board, then the next move is asked for.
  const reply = pz.solution[1].replace(/=K$/, "").split(/[-x]/);
  await p.waitForSelector(`#board .piece[data-sq="${reply[reply.length - 1]}"]`);
  // The right first move is said to be right (#33 item 12).
  assert.equal(await p.textContent("#pz-feedback.right"), "Correct! Now the next move");
  await play(p, pz.solution[2]);
  await p.waitForFunction(() => /Solved/.test(document.querySelector("#pz-feedback.right:not([hidden])")?.textContent || ""));
  const after = Number(await p.textContent("#pz-player"));
  assert.ok(after > 1500, String(after));
  assert.match(await p.textContent("#pz-change"), /^\+\d+$/);
  const kept = await p.evaluate(() => JSON.parse(localStorage.getItem("damasi.puzzle.rating")));
  assert.equal(Math.round(kept.rating), after);
  assert.ok(kept.deviation < 350);
  // The next puzzle: another one, with the new rating shown.
  await p.click("#pz-next");
  await p.waitForFunction((id) => /^#\/puzzle\/[0-9a-f]+$/.test(location.hash) && location.hash !== "#/puzzle/" + id, pz.id);
  assert.equal(await p.textContent("#pz-player"), String(after));
  assert.ok(await p.isHidden("#pz-feedback"));
  assert.deepEqual(errors, []);
});

test("a wrong puzzle move: the expected move is shown and the rating goes down", async () => {
  const pz = PUZZLES.find((q) => q.solution.length === 1 && q.legal_moves >= 2);
  const legal = (await apiCall("GET", "/api/moves?fen=" + encodeURIComponent(pz.fen))).body.moves;
  const wrong = legal.find((m) => m.landing !== pz.solution[0]);
  const { p, errors } = await freshPage("#/puzzle/" + pz.id);
  await p.waitForFunction((r) => document.querySelector("#pz-rating").textContent === String(r), pz.rating);
  await play(p, wrong.landing);
  await p.waitForSelector("#pz-feedback.wrong:not([hidden])");
  assert.ok((await p.textContent("#pz-feedback")).includes(pz.solution[0]));
  assert.ok(Number(await p.textContent("#pz-player")) < 1500);
  assert.match(await p.textContent("#pz-change"), /^−\d+$/);
  assert.deepEqual(errors, []);
});

test("the navigation leads to Learn and Puzzles; #/puzzle picks a puzzle near the player's rating", async () => {
  const { p, errors } = await freshPage("");
  await p.waitForSelector("#board .piece");
  await p.click("#tab-learn");
  await p.waitForFunction(() => location.hash === "#/learn");
  await p.waitForSelector("#learn-list li");
  assert.ok(await p.isHidden("#learn-step"));
  await p.click("#tab-puzzle");
  await p.waitForFunction(() => /^#\/puzzle\/[0-9a-f]+$/.test(location.hash));
  const rating = Number(await p.textContent("#pz-rating"));
  assert.ok(Math.abs(rating - 1500) < 400, String(rating));
  // Turkish texts for the new views.
  await p.click("#lang-tr");
  assert.equal(await p.textContent("#tab-learn"), "Öğren");
  assert.equal(await p.textContent("#tab-puzzle"), "Bulmacalar");
  await p.waitForFunction(() => /oynar ve kazanır/.test(document.querySelector("#pz-task").textContent));
  assert.deepEqual(errors, []);
});
