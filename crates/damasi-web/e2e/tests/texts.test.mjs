// The page's words (issue #33 item 9): moves counted as moves, not plies; a result said once
// in one capitalised sentence; no English server detail in Turkish; toasts clear of the status
// line; "PDN copied" for a PDN; captures counted from the shown line's own start.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { waitUntilUp } from "./server.mjs";
import { apiCall, freshPage as openPage, playLanding } from "./page.mjs";

const open = [];
const freshPage = (hash) => openPage(hash, open);
const SIZES = [["desktop", { width: 1366, height: 768 }], ["phone", { width: 390, height: 844 }]];

before(async () => { await waitUntilUp(); });
after(async () => { for (const b of open) await b.close(); });

// A game between two people, from `fen`, with `moves` played through the API.
async function gameWith(fen, moves) {
  const g = (await apiCall("POST", "/api/games", fen ? { fen } : {})).body;
  for (const move of moves) {
    const r = await apiCall("POST", `/api/games/${g.id}/move`, { move });
    assert.equal(r.status, 200, JSON.stringify(r.body));
  }
  return g.id;
}

const overlap = (a, b) => a && b && a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

for (const [label, viewport] of SIZES) {
  test(`a finished game says its result once, in one sentence; captures counted from its start (${label})`, async () => {
    const id = await gameWith("W:Wd4,a2:Bd5", ["d4xd6"]);
    const { p, errors } = await freshPage(`#/game/${id}`);
    await p.setViewportSize(viewport);
    await p.waitForSelector("#banner:not([hidden])");
    assert.equal(await p.textContent("#banner-text strong"), "White wins: Black has no pieces left");
    assert.equal(await p.textContent("#banner-text small"), "1-0");
    assert.ok(await p.isHidden("#status"));
    const shown = await p.evaluate(() => document.body.innerText);
    assert.equal(shown.split("White wins").length - 1, 1, shown);
    // White took one piece (the game began with three, not 32).
    assert.equal(await p.getAttribute("#mat-bottom", "data-taken"), "1");
    assert.equal(await p.getAttribute("#mat-top", "data-taken"), "0");
    // Browsing back: the start position, then the move by its number.
    await p.click("#nav-first");
    await p.waitForFunction(() => document.querySelector("#status").textContent === "Viewing the start position: press End to return");
    assert.ok(await p.isVisible("#status"));
    assert.deepEqual(errors, []);
  });

  test(`a toast leaves the status line visible (${label})`, async () => {
    const id = await gameWith(null, ["c3-c4", "f6-f5"]);
    const { p, errors } = await freshPage(`#/game/${id}`);
    await p.setViewportSize(viewport);
    await p.waitForFunction(() => /White to move/.test(document.querySelector("#status").textContent));
    await p.fill("#move-input", "a3-a6");
    await p.press("#move-input", "Enter");
    await p.waitForSelector("#toast:not([hidden])");
    const [toast, status] = [await p.locator("#toast").boundingBox(), await p.locator("#status").boundingBox()];
    assert.ok(!overlap(toast, status), JSON.stringify({ toast, status }));
    assert.deepEqual(errors, []);
  });
}

test("moves are numbered as moves: the play view and the review", async () => {
  // Five plies: moves 1, 2 and White's half of move 3.
  const id = await gameWith(null, ["a3-a4", "h6-h5", "b3-b4", "g6-g5", "c3-c4"]);
  const { p, errors } = await freshPage(`#/game/${id}`);
  await p.waitForFunction(() => window.game && game.plies.length === 5);
  await p.click('#movelist button[data-ply="4"]');
  await p.waitForFunction(() => document.querySelector("#status").textContent === "Viewing move 2, Black: press End to return");
  await p.click('#movelist button[data-ply="5"]');
  await p.waitForFunction(() => /Black to move/.test(document.querySelector("#status").textContent));
  await p.goto(p.url().replace(/#.*$/, `#/review/${id}`));
  await p.waitForSelector("#rv-moves button[data-ply='5']");
  await p.click("#rv-moves button[data-ply='5']");
  await p.waitForFunction(() => document.querySelector("#status").textContent === "Move 3, White");
  await p.click("#rv-moves button[data-ply='2']");
  await p.waitForFunction(() => document.querySelector("#status").textContent === "Move 1, Black");
  // The games list counts moves: five plies are three moves.
  await p.click("#tab-games");
  await p.waitForSelector(`#games-body tr[data-id="${id}"]`);
  assert.equal(await p.textContent(`#games-body tr[data-id="${id}"] td:nth-child(5)`), "3");
  assert.deepEqual(errors, []);
});

test("the study: Copy PDN says PDN; captures counted from the study's start", async () => {
  const fen = "W:Wd4,a2:Bd5,h7";
  const { p, errors } = await freshPage("#/study?fen=" + encodeURIComponent(fen));
  await p.context().grantPermissions(["clipboard-read", "clipboard-write"]);
  await p.waitForFunction(() => /White to move/.test(document.querySelector("#status").textContent));
  assert.equal(await p.getAttribute("#mat-bottom", "data-taken"), "0");
  assert.equal(await p.getAttribute("#mat-top", "data-taken"), "0");
  await playLanding(p, "d4xd6");
  await p.waitForFunction(() => document.querySelector("#mat-bottom").dataset.taken === "1");
  assert.equal(await p.getAttribute("#mat-top", "data-taken"), "0");
  await p.click("#st-pdn");
  await p.waitForFunction(() => document.querySelector("#toast").textContent === "PDN copied");
  assert.deepEqual(errors, []);
});

test("in Turkish, a bad FEN, a bad move text and an unreadable PDN are told in Turkish", async () => {
  const english = /expected|is not|found|could not|no game|bad FEN|square/;
  const id = await gameWith(null, []);
  const { p, errors } = await freshPage(`#/game/${id}`);
  await p.click("#lang-tr");
  await p.waitForFunction(() => /Sıra/.test(document.querySelector("#status").textContent));
  const toastAfter = async (act) => {
    await p.evaluate(() => { document.querySelector("#toast").hidden = true; });
    await act();
    await p.waitForSelector("#toast:not([hidden])");
    return p.textContent("#toast");
  };
  // A move text that is not a move.
  let text = await toastAfter(async () => { await p.fill("#move-input", "merhaba"); await p.press("#move-input", "Enter"); });
  assert.match(text, /“merhaba” bir hamle değil/);
  assert.doesNotMatch(text, english);
  // A FEN that is not a position, in the study's FEN field.
  await p.click("#tab-study");
  text = await toastAfter(async () => { await p.fill("#fen-input", "W:Wz9:Bd5"); await p.press("#fen-input", "Enter"); });
  assert.match(text, /Geçersiz konum \(FEN\) \(“z9”\)/);
  assert.doesNotMatch(text, english);
  // A PDN with no readable game, and a file with one broken game.
  await p.click("#tab-games");
  await p.fill("#pdn-text", "[Event \"x\"]\n\n1. d3-d9 *");
  text = await toastAfter(() => p.click("#pdn-form button[type=submit]"));
  assert.match(text, /PDN okunamadı: 1\. oyun, satır 3: “d3-d9”/);
  assert.doesNotMatch(text, english);
  await p.fill("#pdn-text", "1. d3-d4 *\n\n1. d3-d9 *");
  await p.click("#pdn-form button[type=submit]");
  await p.waitForSelector("#pdn-report-list li");
  text = await p.textContent("#pdn-report-list");
  assert.match(text, /2\. oyun, satır 3: “d3-d9” okunamadı/);
  assert.doesNotMatch(text, english);
  assert.deepEqual(errors, []);
});

test("an exercise and a puzzle count no captures before a move is made", async () => {
  const puzzles = JSON.parse(await (await import("node:fs/promises")).readFile(new URL("../../learn/puzzles.json", import.meta.url), "utf8")).puzzles;
  const ex = (await apiCall("GET", "/api/learn/examples")).body.examples[0];
  for (const hash of ["#/learn/men-forward", "#/learn/" + ex.id, "#/puzzle/" + puzzles[0].id]) {
    const { p, errors } = await freshPage(hash);
    await p.waitForFunction(() => document.querySelector("#mat-top").dataset.taken !== undefined && document.querySelectorAll("#board .piece").length > 0);
    await p.waitForLoadState("networkidle");
    assert.equal(await p.getAttribute("#mat-top", "data-taken"), "0", hash);
    assert.equal(await p.getAttribute("#mat-bottom", "data-taken"), "0", hash);
    assert.deepEqual(errors, [], hash);
  }
});
