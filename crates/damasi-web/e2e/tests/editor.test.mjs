// The position editor (issue #33 item 11): while it is open, the study's line, analysis and
// buttons of the position before are not shown; a board without a piece of each side is not
// taken (it is no position to study) and the page says why.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { waitUntilUp } from "./server.mjs";
import { freshPage as openPage, sq } from "./page.mjs";

const open = [];
const freshPage = (hash) => openPage(hash, open);

before(async () => { await waitUntilUp(); });
after(async () => { for (const b of open) await b.close(); });

const STUDY_ONLY = ["#st-moves", "#st-pdn", "#st-promote", "#st-undo", "#st-play", "#analysis"];

for (const [label, viewport] of [["desktop", { width: 1366, height: 768 }], ["phone", { width: 390, height: 844 }]]) {
  test(`the editor hides the study's line and buttons, and refuses a board without both sides (${label})`, async () => {
    const fen = "W:Wa3,c3,e3:Ba6,c6,e6";
    const { p, errors } = await freshPage("#/study?" + new URLSearchParams({ fen, moves: "c3-c4,c6-c5" }));
    await p.setViewportSize(viewport);
    await p.waitForFunction(() => document.querySelectorAll("#st-moves button").length === 2);
    for (const s of STUDY_ONLY) assert.ok(await p.isVisible(s), s);
    await p.click("#st-edit");
    await p.waitForSelector("#editor:not([hidden])");
    for (const s of STUDY_ONLY) assert.ok(await p.isHidden(s), s + " while editing");
    assert.ok(await p.isVisible("#ed-done"));
    // An empty board: refused, with the reason; the editor stays.
    await p.click("#ed-clear");
    await p.click("#ed-done");
    await p.waitForFunction(() => document.querySelector("#toast").textContent === "Place at least one piece of each side");
    assert.ok(await p.isVisible("#editor"));
    assert.doesNotMatch(await p.textContent("#status"), /wins/);
    // White alone: refused as well.
    await p.click('.palette button[data-tool="wk"]');
    await p.click(sq("d4"));
    await p.evaluate(() => { document.querySelector("#toast").hidden = true; });
    await p.click("#ed-done");
    await p.waitForSelector("#toast:not([hidden])");
    assert.ok(await p.isVisible("#editor"));
    // A piece of each side: the study of the new position, its line empty.
    await p.click('.palette button[data-tool="bm"]');
    await p.click(sq("d6"));
    await p.click("#ed-done");
    await p.waitForSelector("#editor", { state: "hidden" });
    await p.waitForFunction(() => document.querySelector("#fen-input").value === "W:WKd4:Bd6");
    assert.ok(await p.isVisible("#st-moves"));
    assert.equal(await p.locator("#st-moves button").count(), 0);
    assert.ok(await p.isVisible("#analysis"));
    assert.deepEqual(errors, []);
  });
}
