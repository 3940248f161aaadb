// Puzzles of several moves (issue #33 item 12): each right move that is not the last is said
// to be right; after a wrong move, "Retry" gives the same puzzle from its start, whose solving
// then changes the rating no more.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { waitUntilUp } from "./server.mjs";
import { apiCall, freshPage as openPage, playLanding as play } from "./page.mjs";

const PUZZLES = JSON.parse(readFileSync(new URL("../../learn/puzzles.json", import.meta.url), "utf8")).puzzles;
const open = [];
const freshPage = (hash) => openPage(hash, open);

before(async () => { await waitUntilUp(); });
after(async () => { for (const b of open) await b.close(); });

const landingOf = (move) => move.replace(/=K$/, "").split(/[-x]/).pop();

for (const [label, viewport] of [["desktop", { width: 1366, height: 768 }], ["phone", { width: 390, height: 844 }]]) {
  test(`a five-move puzzle: "correct" after each right move; a wrong one offers Retry (${label})`, async () => {
    const pz = PUZZLES.find((q) => q.solution.length === 5);
    const { p, errors } = await freshPage("#/puzzle/" + pz.id);
    await p.setViewportSize(viewport);
    await p.waitForFunction((r) => document.querySelector("#pz-rating").textContent === String(r), pz.rating);
    assert.ok(await p.isHidden("#pz-retry"));
    // Two right moves, each said to be right once the reply is on the board.
    for (const k of [0, 2]) {
      await play(p, pz.solution[k]);
      await p.waitForSelector(`#board .piece[data-sq="${landingOf(pz.solution[k + 1])}"]`);
      await p.waitForFunction(() => document.querySelector("#pz-feedback.right")?.textContent === "Correct! Now the next move");
      assert.ok(await p.isVisible("#pz-feedback"));
    }
    // Then a wrong move: the right one is shown, the rating falls, Retry is offered.
    const fen = await p.evaluate(() => board.fen);
    const legal = (await apiCall("GET", "/api/moves?fen=" + encodeURIComponent(fen))).body.moves;
    const wrong = legal.find((m) => m.landing !== pz.solution[4]);
    if (!wrong) return; // a forced last move: nothing wrong to play (not so in today's set)
    await play(p, wrong.landing);
    await p.waitForSelector("#pz-feedback.wrong:not([hidden])");
    const fell = Number(await p.textContent("#pz-player"));
    assert.ok(fell < 1500, String(fell));
    assert.ok(await p.isVisible("#pz-retry"));
    assert.equal(await p.textContent("#pz-retry"), "Retry");
    // Retry: the puzzle from its start, solved to the end; the rating stays where it fell.
    await p.click("#pz-retry");
    await p.waitForFunction(() => document.querySelector("#pz-feedback").hidden);
    assert.equal(await p.evaluate(() => location.hash), "#/puzzle/" + pz.id);
    assert.ok(await p.isHidden("#pz-retry"));
    for (const k of [0, 2, 4]) {
      await play(p, pz.solution[k]);
      if (k < 4) await p.waitForSelector(`#board .piece[data-sq="${landingOf(pz.solution[k + 1])}"]`);
    }
    await p.waitForFunction(() => /Solved/.test(document.querySelector("#pz-feedback.right:not([hidden])")?.textContent || ""));
    assert.equal(Number(await p.textContent("#pz-player")), fell);
    assert.equal(Math.round((await p.evaluate(() => JSON.parse(localStorage.getItem("damasi.puzzle.rating")))).rating), fell);
    assert.deepEqual(errors, []);
  });
}
