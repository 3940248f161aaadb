// The Study view's opening explorer (issue #45): master games imported with
// `damasi explorer import` into the running server's data directory show in the panel with
// their counts, average ratings and result bars; clicking a move plays it; and a game played
// on the server through the Board API shows under "This server" once it ends.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { waitUntilUp, URL_BASE } from "./server.mjs";
import { openApp } from "./page.mjs";

let browser, page, errors;

before(async () => {
  await waitUntilUp();
  ({ browser, page, errors } = await openApp());
});

after(async () => {
  if (browser) await browser.close();
});

// Three master games: c3-c4 f6-f5 1-0 (2400 and 2200: 2300), c3-c4 a6-a5 0-1 (2000 and
// 2200: 2100), e3-e4 f6-f5 drawn without ratings.
const PDN = `[Event "E"]
[White "Usta A"]
[Black "Usta B"]
[WhiteElo "2400"]
[BlackElo "2200"]
[Result "1-0"]

1. c3-c4 f6-f5 1-0

[Event "E"]
[White "Usta C"]
[Black "Usta D"]
[WhiteElo "2000"]
[BlackElo "2200"]
[Result "0-1"]

1. c3-c4 a6-a5 0-1

[Event "E"]
[White "Usta E"]
[Black "Usta F"]
[Result "1/2-1/2"]

1. e3-e4 f6-f5 1/2-1/2
`;

async function openStudy(fen = "") {
  await page.goto(URL_BASE + "/#/study" + (fen ? "?fen=" + encodeURIComponent(fen) : ""));
  await page.waitForFunction(() => location.hash.startsWith("#/study"));
}

// The rows of the explorer's table: [move, games, average rating].
const rows = () => page.$$eval("#ex-moves tbody tr", (trs) =>
  trs.map((tr) => [...tr.querySelectorAll("td")].slice(0, 3).map((td) => td.textContent)));

test("master games imported while the server runs show in the Study view's explorer", async () => {
  const dir = mkdtempSync(join(tmpdir(), "damasi-explorer-"));
  writeFileSync(join(dir, "masters.pdn"), PDN);
  const out = execFileSync(process.env.DAMASI_BIN,
    ["explorer", "import", join(dir, "masters.pdn"), "--data-dir", process.env.DAMASI_DATA], { encoding: "utf8" });
  assert.match(out, /imported 3 games/);

  await openStudy();
  await page.waitForSelector("#ex-panel:not([hidden]):not([aria-busy])");
  const answered = page.waitForResponse((r) => r.url().includes("/api/explorer/masters"));
  await page.click("#ex-src-masters");
  await answered;
  await page.waitForFunction(() => document.querySelector("#ex-moves tbody tr td")?.textContent === "c3-c4");
  // c3-c4: two games, (2300 + 2100) / 2 = 2200; e3-e4: one, no rating; then the total.
  assert.deepEqual(await rows(), [["c3-c4", "2", "2200"], ["e3-e4", "1", "–"], ["Σ", "3", ""]]);
  assert.equal(await page.getAttribute("#ex-moves tbody tr:first-child .exbar", "aria-label"),
    "White won 1, drawn 0, Black won 1");
  assert.equal(await page.isHidden("#ex-filters"), true);

  // Clicking a move plays it: after c3-c4, a6-a5 (2100) and f6-f5 (2300), one game each.
  await page.click("#ex-moves tbody tr:first-child button");
  await page.waitForFunction(() => document.querySelector("#ex-moves tbody tr td")?.textContent === "a6-a5");
  assert.deepEqual(await rows(), [["a6-a5", "1", "2100"], ["f6-f5", "1", "2300"], ["Σ", "2", ""]]);
  assert.match(await page.textContent("#st-moves"), /c3-c4/);
  assert.deepEqual(errors, []);
});

// An account's API token: the last line `damasi user add` prints.
const token = (name) => execFileSync(process.env.DAMASI_BIN,
  ["user", "add", name, "--data-dir", process.env.DAMASI_DATA], { encoding: "utf8" }).trim().split("\n").pop();

async function post(tok, path, body) {
  const r = await fetch(URL_BASE + path, {
    method: "POST",
    headers: { Authorization: "Bearer " + tok, "Content-Type": "application/json" },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await r.text();
  assert.ok(r.ok, path + ": " + r.status + " " + text);
  return JSON.parse(text);
}

test("a game played on the server shows under This server once it ends", async () => {
  const [a, b] = [token("explorerA" + (Date.now() % 100000)), token("explorerB" + (Date.now() % 100000))];
  const { id } = await post(a, "/api/challenge/open", { clock: { limit: 300, increment: 3 }, rated: true });
  await post(a, `/api/challenge/${id}/accept`, { color: "white" });
  await post(b, `/api/challenge/${id}/accept`, {});
  await post(a, `/api/board/game/${id}/move/b3-b4`);
  await post(b, `/api/board/game/${id}/resign`);
  // Counted as it ends (a moment later, by the server's listener).
  for (let i = 0; i < 100; i++) {
    const r = await (await fetch(URL_BASE + "/api/explorer/lichess?speeds=blitz")).json();
    if (r.moves.some((m) => m.uci === "b3-b4")) break;
    await sleep(100);
  }
  await page.click("#ex-src-lichess");
  // The start position, as the server writes it.
  const start = (await (await fetch(URL_BASE + "/api/moves")).json()).fen;
  await openStudy(start);
  await page.waitForFunction(() => [...document.querySelectorAll("#ex-moves tbody tr td:first-child")]
    .some((td) => td.textContent === "b3-b4"));
  assert.equal(await page.isVisible("#ex-filters"), true);
  assert.deepEqual(errors, []);
});
