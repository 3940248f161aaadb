// A visit saves a game only when the person starts one (issue #33 item 6): opening the page,
// Learn, Puzzles or a shared study link creates nothing; the first move on the start position
// starts a game against the engine; the games list shows only games that were played.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { waitUntilUp } from "./server.mjs";
import { apiCall, freshPage as openPage, playLanding } from "./page.mjs";

const open = [];
const freshPage = (hash) => openPage(hash, open);

before(async () => { await waitUntilUp(); });
after(async () => { for (const b of open) await b.close(); });

// A new game's id: games made meanwhile by anyone show as a gap after `since`.
async function nextId() {
  const r = await apiCall("POST", "/api/games", {});
  assert.equal(r.status, 201);
  return r.body.id;
}

test("opening the page, Learn, Puzzles or a study link saves no game", async () => {
  const first = await nextId();
  const views = [
    ["", () => document.querySelector("#status").textContent.includes("first move")],
    ["#/learn/men-forward", () => document.querySelector("#learn-title").textContent !== ""],
    ["#/puzzle", () => /^#\/puzzle\/[0-9a-f]+$/.test(location.hash)],
    ["#/study?fen=" + encodeURIComponent("W:Wd4,a2:Bd5,h7") + "&moves=d4xd6", () => document.querySelectorAll("#st-moves button").length === 1],
    ["#/games", () => document.querySelector("#games-body tr") !== null],
  ];
  for (const [hash, ready] of views) {
    const { p, errors } = await freshPage(hash);
    await p.waitForFunction(ready);
    // Whatever the page loads after it is shown.
    await p.waitForLoadState("networkidle");
    assert.equal(await p.evaluate(() => (window.game ? game.id : null)), null, hash);
    assert.deepEqual(errors, [], hash);
  }
  const last = await nextId();
  assert.equal(last, first + 1, "no game was created between the two made by this test");
  // Games nobody moved in are not listed.
  const list = (await apiCall("GET", "/api/games?limit=1000")).body;
  assert.ok(!list.some((g) => g.id === first || g.id === last), JSON.stringify(list.slice(0, 3)));
  assert.ok(list.every((g) => g.plies > 0 || g.outcome), "every listed game was played");
  for (const id of [first, last]) await apiCall("DELETE", `/api/games/${id}`);
});

for (const [label, viewport] of [["desktop", { width: 1366, height: 768 }], ["phone", { width: 390, height: 844 }]]) {
  test(`the first move on the start position starts a game against the engine (${label})`, async () => {
    const { p, errors } = await freshPage("");
    await p.setViewportSize(viewport);
    await p.waitForFunction(() => document.querySelector("#status").textContent.includes("first move"));
    assert.equal(await p.locator("#board .piece").count(), 32);
    assert.match(await p.textContent("#name-bottom"), /White · You/);
    assert.match(await p.textContent("#name-top"), /Black · Engine, level 3/);
    assert.ok(await p.isHidden("#btn-export-play"));
    await playLanding(p, "c3-c4");
    // The game exists now, with the move and the engine's reply.
    await p.waitForFunction(() => window.game && game.plies.length === 2, null, { timeout: 30000 });
    const id = await p.evaluate(() => game.id);
    assert.equal(await p.evaluate(() => game.plies[0].move.landing), "c3-c4");
    await p.waitForFunction((id) => location.hash === `#/game/${id}`, id);
    assert.ok(await p.isVisible("#btn-export-play"));
    // The games list shows it, its moves counted as moves (two plies are move 1).
    await p.click("#tab-games");
    await p.waitForSelector(`#games-body tr[data-id="${id}"]`);
    assert.equal(await p.textContent(`#games-body tr[data-id="${id}"] td:nth-child(5)`), "1");
    // A reload opens the game again, and makes no other.
    await p.reload();
    await p.waitForFunction((id) => window.game && game.id === id, id);
    assert.deepEqual(errors, []);
    await apiCall("DELETE", `/api/games/${id}`);
  });
}

// #44: "Type a move" was disabled on the first screen while the status invited a first move.
test("a move typed on the first screen starts the game; a wrong one starts none", async () => {
  const { p, errors } = await freshPage("");
  await p.waitForFunction(() => document.querySelector("#status").textContent.includes("first move"));
  assert.ok(await p.isEnabled("#move-input"));
  const before = await nextId();
  await apiCall("DELETE", `/api/games/${before}`);
  await p.fill("#move-input", "c3-c6");
  await p.press("#move-input", "Enter");
  await p.waitForFunction(() => /c3-c6/.test(document.querySelector("#toast").textContent));
  assert.equal(await p.evaluate(() => !!window.game), false, "a wrong move starts no game");
  await p.fill("#move-input", "c3-c4");
  await p.press("#move-input", "Enter");
  await p.waitForFunction(() => window.game && game.plies.length >= 1, null, { timeout: 30000 });
  assert.equal(await p.evaluate(() => game.plies[0].move.landing), "c3-c4");
  const id = await p.evaluate(() => game.id);
  assert.ok(id > before, "the good move made the game");
  assert.deepEqual(errors, []);
  await apiCall("DELETE", `/api/games/${id}`);
});
