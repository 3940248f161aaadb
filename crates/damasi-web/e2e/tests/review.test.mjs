// Game review (issue #11): an imported game with a clear blunder (White's 2. e3-e4 lets Black
// take two men and crown a king) analysed in the page, its graph (one point per ply), its marks, the better move's
// arrow and each side's accuracy; "learn from your mistakes" turning down the game's move and
// taking the engine's; a bad address showing its error; and arrows drawn with the right button.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { waitUntilUp, URL_BASE } from "./server.mjs";
import { sq, apiCall, freshPage as openPage, shotOf as shot, playLanding as play } from "./page.mjs";

const PDN = `[GameType "30"]
[White "Ayşe"]
[Black "Mehmet"]
[Result "0-1"]
1. d3-d4 e6-e5 2. e3-e4 e5xe3xe1 3. f2-e2 e1xe4xa4 4. a3xa5 a6xa4 0-1
`;
const PLIES = 8;
const BLUNDER_PLY = 3; // 2. e3-e4, the third ply
const open = [];
const freshPage = (hash) => openPage(hash, open, 20000);
// An arrow along a file has no width: waiting for it to be in the page, not "visible".
const ATTACHED = { state: "attached" };

before(async () => { await waitUntilUp(); });
after(async () => { for (const b of open) await b.close(); });

test("a review: progress, graph, marks, the better move's arrow, accuracy and learning from the blunder", async () => {
  const res = await apiCall("POST", "/api/pdn/import", { pdn: PDN });
  assert.equal(res.status, 201);
  const id = res.body.ids[0];
  // From the games list: the game's Review link.
  const { p, errors } = await freshPage("#/games");
  await p.click(`#games-body tr[data-id="${id}"] a.review`);
  await p.waitForFunction((id) => location.hash === "#/review/" + id, id);
  assert.equal(await p.getAttribute("#tab-games", "aria-selected"), "true");
  await p.waitForSelector("#rv-progress progress");
  // The analysis runs in the background, the bar filling, until every position is done.
  await p.waitForSelector('#rv-progress[data-done="true"]', { timeout: 60000 });
  assert.equal(await p.textContent("#rv-progress-text"), "Analysis complete");
  assert.equal(await p.getAttribute("#rv-bar", "value"), String(PLIES + 1));
  // The graph: one point per ply, the blunder's in its colour.
  assert.equal(await p.locator("#rv-graph circle.pt").count(), PLIES);
  assert.equal(await p.locator(`#rv-graph circle.pt.blunder[data-ply="${BLUNDER_PLY}"]`).count(), 1);
  // The move list marks it ??.
  const blunder = p.locator(`#rv-moves button[data-ply="${BLUNDER_PLY}"]`);
  assert.equal(await blunder.textContent(), "e3-e4??");
  assert.ok(await blunder.evaluate((b) => b.classList.contains("mark-blunder")));
  // Each side's accuracy, White's lower for the blunder.
  const acc = async (side) => Number((await p.textContent("#rv-acc-" + side)).replace("%", ""));
  const [white, black] = [await acc("white"), await acc("black")];
  assert.ok(white >= 0 && white < black && black <= 100, JSON.stringify({ white, black }));
  assert.match(await p.textContent("#rv-marks-white"), /[1-9] blunders?/);
  // A click on the graph at the blunder's point shows it, with the better move as an arrow.
  await p.click(`#rv-graph circle.pt[data-ply="${BLUNDER_PLY}"]`, { force: true });
  await p.waitForSelector(`#rv-moves button.cur[data-ply="${BLUNDER_PLY}"]`);
  assert.match(await p.textContent("#rv-comment"), /^e3-e4\?\? Blunder \(−\d+%\) · better was [a-h][1-8][-x]/);
  const better = (await p.textContent("#rv-comment")).replace(/^.*better was /, "");
  const [from, to] = [better.split(/[-x]/)[0], better.replace(/=K$/, "").split(/[-x]/).pop()];
  await p.waitForSelector(`#board svg.shapes polyline.arrow[data-from="${from}"][data-to="${to}"][data-brush="green"]`, ATTACHED);
  assert.equal(await p.locator("#board .sq.last").count(), 2);
  await shot(p, "review");

  // Learn from the mistakes: the blunder's position, the game's move turned down, the
  // engine's taken.
  await p.click("#rv-learn");
  await p.waitForFunction(() => /^Mistake 1 of \d+: White played e3-e4 here/.test(document.querySelector("#rv-learn-task").textContent));
  await play(p, "e3-e4");
  await p.waitForSelector("#rv-learn-feedback.wrong:not([hidden])");
  assert.equal(await p.textContent("#rv-learn-feedback"), "Not that one: try again");
  // The position again, the man back on e3. A move that gives a man away (d4-d5 d6xd4),
  // judged by the engine side by side with its own, is turned down too.
  await p.waitForSelector(`#board .piece.movable[data-sq="e3"]`);
  await play(p, "d4-d5");
  await p.waitForSelector("#rv-learn-feedback.wrong:not([hidden])");
  assert.equal(await p.textContent("#rv-learn-feedback"), "Not that one: try again");
  await p.waitForSelector(`#board .piece.movable[data-sq="d4"]`);
  await play(p, better);
  await p.waitForSelector("#rv-learn-feedback.right:not([hidden])");
  assert.match(await p.textContent("#rv-learn-feedback"), /best move/);
  assert.ok(await p.isHidden("#rv-learn-answer"));
  await p.click("#rv-learn-stop");
  assert.ok(await p.isHidden("#rv-learnbox"));
  // Another quiet move, which the engine scores about as well as its own (a few hundredths
  // of a man apart at every depth), is right too.
  const quiet = ["c3-c4", "g3-g4"].find((m) => m !== better);
  await p.click("#rv-learn");
  await p.waitForSelector(`#board .piece.movable[data-sq="${quiet.slice(0, 2)}"]`);
  await play(p, quiet);
  await p.waitForSelector("#rv-learn-feedback.right:not([hidden])");
  assert.match(await p.textContent("#rv-learn-feedback"), /^Good: that move is about as strong as /);
  assert.deepEqual(errors, []);
});

test("from a game's result to its review; show answer draws the better move; a bad address shows an error, never a blank panel", async () => {
  const res = await apiCall("POST", "/api/pdn/import", { pdn: PDN });
  const id = res.body.ids[0];
  // From the finished game's result, under the board.
  const { p, errors } = await freshPage("#/game/" + id);
  await p.click("#banner:not([hidden]) #btn-review");
  await p.waitForFunction((id) => location.hash === "#/review/" + id, id);
  await p.waitForSelector('#rv-progress[data-done="true"]', { timeout: 60000 });
  await p.click("#rv-learn");
  await p.click("#rv-learn-answer");
  await p.waitForSelector("#board svg.shapes polyline.arrow[data-brush='green']", ATTACHED);
  assert.match(await p.textContent("#rv-learn-feedback"), /^The better move was /);

  await p.goto(URL_BASE + "/#/review/999999");
  await p.waitForSelector("#rv-error:not([hidden])");
  assert.match(await p.textContent("#rv-error"), /not found|deleted/i);
  assert.ok(await p.isHidden("#rv-body"));
  await p.goto(URL_BASE + "/#/review/abc");
  await p.waitForSelector("#rv-error:not([hidden])");
  assert.match(await p.textContent("#rv-error"), /No game “abc” to review/);
  // A broken PDN: the import says which game and line, and offers nothing to review.
  await p.goto(URL_BASE + "/#/games");
  await p.fill("#pdn-text", "1. d3-d9 e6-e5 *");
  await p.click("#pdn-form button[type=submit]");
  await p.waitForFunction(() => /game 1 line 1/.test(document.querySelector("#toast").textContent));
  assert.equal(await p.locator("#pdn-report a.reviewlink").count(), 0);
  // A good one: a link to each imported game's review.
  await p.fill("#pdn-text", PDN);
  await p.click("#pdn-form button[type=submit]");
  await p.click("#pdn-report a.reviewlink");
  await p.waitForFunction(() => /^#\/review\/\d+$/.test(location.hash));
  await p.waitForSelector("#rv-body:not([hidden])");
  assert.ok(await p.isHidden("#rv-error"));
  assert.deepEqual(errors, []);
});

test("the right button draws arrows and circles on the board; a left click clears them", async () => {
  const { p, errors } = await freshPage("");
  await p.waitForSelector("#board .piece");
  const centre = async (s) => { const b = await p.locator(sq(s)).boundingBox(); return [b.x + b.width / 2, b.y + b.height / 2]; };
  const [ax, ay] = await centre("c3"), [bx, by] = await centre("c5");
  await p.mouse.move(ax, ay);
  await p.mouse.down({ button: "right" });
  await p.mouse.move(bx, by, { steps: 4 });
  await p.mouse.up({ button: "right" });
  await p.waitForSelector('#board svg.shapes polyline.arrow[data-from="c3"][data-to="c5"][data-by="user"]', ATTACHED);
  // A right click on one square: a circle.
  const [cx, cy] = await centre("f6");
  await p.mouse.click(cx, cy, { button: "right" });
  await p.waitForSelector('#board svg.shapes circle.circle[data-from="f6"]', ATTACHED);
  // The arrow follows the board when it is turned round.
  const before = await p.getAttribute("#board svg.shapes polyline.arrow", "points");
  await p.click("#btn-flip");
  await p.waitForFunction((b) => {
    const a = document.querySelector("#board svg.shapes polyline.arrow");
    return a && a.getAttribute("points") !== b;
  }, before);
  // A left click anywhere on the board takes them away.
  const [dx, dy] = await centre("e4");
  await p.mouse.click(dx, dy);
  await p.waitForFunction(() => !document.querySelector("#board svg.shapes .shape"));
  assert.deepEqual(errors, []);
});
