// An imported record as the file says it (issue #33 item 8): its players' names in the play
// view, and a result the file gives without a reason said as only who won (no invented
// resignation), in the play view, the games list and the export.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { waitUntilUp, URL_BASE } from "./server.mjs";
import { freshPage as openPage } from "./page.mjs";

const open = [];
const freshPage = (hash) => openPage(hash, open);

before(async () => { await waitUntilUp(); });
after(async () => { for (const b of open) await b.close(); });

const RECORD = `[Event "Club final"]
[White "Ayşe <b>Kaya</b>"]
[Black "Mehmet"]

1. d3-d4 e6-e5 0-1
`;

for (const [label, viewport] of [["desktop", { width: 1366, height: 768 }], ["phone", { width: 390, height: 844 }]]) {
  test(`an imported game shows its players' names and only the result it gives (${label})`, async () => {
    const { p, errors } = await freshPage("#/games");
    await p.setViewportSize(viewport);
    await p.fill("#pdn-text", RECORD);
    await p.click("#pdn-form button[type=submit]");
    await p.waitForSelector("#pdn-report-reviews a.reviewlink");
    const id = Number((await p.getAttribute("#pdn-report-reviews a.reviewlink", "href")).split("/").pop());
    const row = `#games-body tr[data-id="${id}"]`;
    await p.waitForSelector(row);
    assert.equal(await p.textContent(`${row} td:nth-child(6) div`), "Black wins");
    await p.click(`${row} button.resume`);
    await p.waitForFunction((id) => window.game && game.id === id, id);
    // The names are text, never markup.
    assert.equal(await p.textContent("#name-bottom"), "White · Ayşe <b>Kaya</b>");
    assert.equal(await p.textContent("#name-top"), "Black · Mehmet");
    assert.equal(await p.locator("#name-bottom b").count(), 0);
    assert.equal(await p.textContent("#banner-text strong"), "Black wins");
    // The export says what the file said: no Termination.
    const pdn = await (await fetch(`${URL_BASE}/api/games/${id}/pdn`)).text();
    assert.doesNotMatch(pdn, /Termination/);
    assert.match(pdn, /\[White "Ayşe <b>Kaya<\/b>"\]/);
    assert.deepEqual(errors, []);
  });
}

const ANNOTATED = `[Event "Annotated"]
[GameType "30"]

{A lesson} 1. d3-d4 {the centre} e6-e5 (1... f6-f5 2. c3-c4 ; a quiet line
) 2. c3-c4 f6-f5 *
`;

for (const [label, viewport] of [["desktop", { width: 1366, height: 768 }], ["phone", { width: 390, height: 844 }]]) {
  test(`an imported game's variations and comments open in the study (${label})`, async () => {
    const { p, errors } = await freshPage("#/games");
    await p.setViewportSize(viewport);
    await p.context().grantPermissions(["clipboard-read", "clipboard-write"]);
    // A plain game first: it gets no study link.
    await p.fill("#pdn-text", "1. a3-a4 h6-h5 *\n\n" + ANNOTATED);
    await p.click("#pdn-form button[type=submit]");
    await p.waitForFunction(() => document.querySelectorAll("#pdn-report-reviews a.reviewlink").length === 2);
    assert.equal(await p.locator("#pdn-report-reviews a.studylink").count(), 1);
    const ids = await p.$$eval("#pdn-report-reviews a.reviewlink", (as) => as.map((a) => Number(a.getAttribute("href").split("/").pop())));
    assert.match(await p.textContent("#pdn-report-reviews a.studylink"), new RegExp(`^Study game ${ids[1]} with its variations and comments$`));
    await p.click("#pdn-report-reviews a.studylink");
    // Main line, the variation, and the comments.
    await p.waitForFunction(() => document.querySelectorAll("#st-moves button").length === 6);
    assert.deepEqual(await p.$$eval("#st-moves button.varmove", (bs) => bs.map((b) => b.textContent)), ["f6-f5", "c3-c4"]);
    assert.equal(await p.textContent("#st-comment"), "A lesson");
    await p.click("#st-moves button.commented >> nth=0");
    await p.waitForFunction(() => document.querySelector("#st-comment").textContent === "the centre");
    assert.ok(await p.isVisible("#st-comment"));
    // The address keeps them: a reload shows the same.
    await p.waitForFunction(() => location.hash.includes("tree="));
    await p.reload();
    await p.waitForFunction(() => document.querySelector("#st-comment").textContent === "the centre");
    assert.equal(await p.locator("#st-moves button.commented").count(), 2);
    // And the study's PDN writes them.
    await p.click("#st-pdn");
    await p.waitForFunction(() => document.querySelector("#toast").textContent === "PDN copied");
    const copied = await p.evaluate(() => navigator.clipboard.readText());
    assert.match(copied, /\{A lesson\} 1\. d3-d4 \{the centre\} 1\.\.\. e6-e5 \(1\.\.\. f6-f5 2\. c3-c4 \{a quiet line\}\) 2\. c3-c4 f6-f5 \*/);
    // Later, from the games list: the saved game keeps them for its study (and its export).
    await p.click("#tab-games");
    await p.waitForSelector(`#games-body tr[data-id="${ids[1]}"] button.study`);
    assert.equal(await p.locator(`#games-body tr[data-id="${ids[0]}"] button.study`).count(), 0);
    await p.click(`#games-body tr[data-id="${ids[1]}"] button.study`);
    await p.waitForFunction(() => location.hash.startsWith("#/study") && !location.hash.includes("moves=")
      && document.querySelector("#st-comment").textContent === "A lesson");
    assert.equal(await p.locator("#st-moves button").count(), 6);
    assert.equal(await p.locator("#st-moves button.commented").count(), 2);
    const pdn = await (await fetch(`${URL_BASE}/api/games/${ids[1]}/pdn`)).text();
    assert.match(pdn, /\{the centre\} e6-e5 \(1\.\.\. f6-f5/);
    assert.deepEqual(errors, []);
  });
}
