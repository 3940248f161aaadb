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
