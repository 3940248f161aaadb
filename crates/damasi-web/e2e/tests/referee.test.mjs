// The server as the referee, seen from the browser: clocks that survive a reload, draw offers
// with a confirmation and a limit, no take-back after the end, errors in the reader's
// language, a partial PDN import, and an engine thought that survives a server restart.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { waitUntilUp, crashAndRestart } from "./server.mjs";
import {
  openApp, moveTexts, waitForPlies, waitIdle, newGame, clickMove, toastMatching, apiCall,
} from "./page.mjs";

let browser, page, dialogs, errors;

before(async () => {
  await waitUntilUp();
  ({ browser, page, dialogs, errors } = await openApp());
});

after(async () => {
  if (browser) await browser.close();
});

// The clocks as the page shows them: { white, black } in ms, and the side whose clock runs.
async function shownClocks(p = page) {
  return p.evaluate(() => {
    const ms = (id) => Number(document.getElementById(id).dataset.ms);
    const top = board.flipped ? "white" : "black";
    const bottom = top === "white" ? "black" : "white";
    const running = document.querySelector(".clock.running");
    return {
      [top]: ms("clock-top"),
      [bottom]: ms("clock-bottom"),
      running: running ? (running.id === "clock-top" ? top : bottom) : null,
    };
  });
}

test("a reload mid-game keeps the clocks running and true", async () => {
  await newGame(page, { opponent: "human", time: "3+2" });
  await clickMove(page, "d3", "d4");
  await clickMove(page, "e6", "e5");
  await page.waitForFunction(() => document.querySelector(".clock.running"));
  const first = await shownClocks();
  assert.ok(first.running, "a clock runs after two moves");
  const idle = first.running === "white" ? "black" : "white";
  // Let the running clock lose a few seconds, then reload.
  await page.waitForFunction(([id, ms]) => Number(document.getElementById(id).dataset.ms) < ms,
    [await clockId(first.running), first[first.running] - 2500], { timeout: 10000 });
  const before = await shownClocks();
  await page.reload();
  await page.waitForFunction(() => game && document.querySelector(".clock.running"));
  const after = await shownClocks();
  assert.equal(after.running, first.running, "the same side's clock runs after the reload");
  assert.ok(after[first.running] < before[first.running], `${after[first.running]} < ${before[first.running]}`);
  assert.ok(after[first.running] > before[first.running] - 10000, "the reload did not cost more time than it took");
  assert.equal(after[idle], before[idle], "the other clock is unchanged");
  // It keeps going down.
  await page.waitForFunction(([id, ms]) => Number(document.getElementById(id).dataset.ms) < ms,
    [await clockId(first.running), after[first.running] - 1000], { timeout: 5000 });
  const server = (await apiCall("GET", `/api/games/${await page.evaluate(() => game.id)}`)).body;
  assert.equal(server.clock.running, first.running);
  // A second tab shows the same game with the same time, and follows a move made in the first.
  const second = await browser.context.newPage();
  try {
    await second.goto(page.url());
    await second.waitForFunction(() => game && document.querySelector(".clock.running"));
    const [a, b] = [await shownClocks(), await shownClocks(second)];
    assert.ok(Math.abs(a[first.running] - b[first.running]) < 2500, `${a[first.running]} vs ${b[first.running]}`);
    assert.equal(a[idle], b[idle]);
    const m = await page.evaluate(() => game.legal[0]);
    await clickMove(page, m.from, m.to);
    await second.waitForFunction((n) => game.plies.length === n, 3);
    await second.waitForFunction((side) => document.querySelector(".clock.running")
      && game.clock.running === side, idle);
  } finally {
    await second.close();
  }
});

test("a flag falls on the server and the page shows the loss on time", async () => {
  // A two-second clock, made through the API and opened from its address (the Games tab
  // lists it only once a move is made).
  const made = await apiCall("POST", "/api/games", {
    white: { kind: "human" }, black: { kind: "human" }, clock: { minutes: 2 / 60, increment_s: 0 },
  });
  assert.equal(made.status, 201);
  const id = made.body.id;
  await page.evaluate((id) => { location.hash = `#/game/${id}`; }, id);
  await page.waitForFunction((id) => game && game.id === id, id);
  await clickMove(page, "d3", "d4");
  // Black's clock runs out while nobody does anything.
  await page.waitForSelector("#banner:not([hidden])", { timeout: 10000 });
  assert.match(await page.textContent("#banner"), /White wins: Black ran out of time/);
  assert.equal(await page.evaluate(() => game.outcome.code), "white:time");
  assert.equal(await page.textContent("#clock-top"), "0:00.0");
});

async function clockId(side) {
  return page.evaluate((side) => ((board.flipped ? "white" : "black") === side ? "clock-top" : "clock-bottom"), side);
}

test("a draw offer is confirmed first, answered by the other person, at most twice", async () => {
  await newGame(page, { opponent: "human" });
  await clickMove(page, "d3", "d4");
  // Black offers; the page asks for confirmation, then the other person answers (declines).
  dialogs.length = 0;
  await page.click("#btn-draw");
  await page.waitForSelector("#draw-ask:not([hidden])");
  assert.deepEqual(dialogs, ["Offer a draw? If accepted the game ends in a draw."]);
  assert.match(await page.textContent("#draw-ask-text"), /Black offers a draw\. White, do you accept\?/);
  assert.ok(await page.isDisabled("#btn-draw"), "no second offer while one waits");
  await page.click("#draw-no");
  await page.waitForSelector("#draw-ask", { state: "hidden" });
  // The second offer is the last one for Black.
  await page.click("#btn-draw");
  await page.waitForSelector("#draw-ask:not([hidden])");
  await page.click("#draw-no");
  await page.waitForSelector("#draw-ask", { state: "hidden" });
  await page.waitForFunction(() => game.draw.offers.black === 2);
  assert.ok(await page.isDisabled("#btn-draw"), "Black has used both offers");
  // White offers and Black accepts: the game ends in an agreed draw.
  await clickMove(page, "e6", "e5");
  await page.click("#btn-draw");
  await page.waitForSelector("#draw-ask:not([hidden])");
  await page.click("#draw-yes");
  await page.waitForSelector("#banner:not([hidden])");
  assert.match(await page.textContent("#banner"), /Draw by agreement/);
  assert.equal(await page.evaluate(() => game.outcome.code), "draw:agreement");
});

test("take back is refused after the end", async () => {
  await newGame(page, { opponent: "engine", level: 1, color: "white" });
  await clickMove(page, "d3", "d4");
  await waitForPlies(page, 2);
  await waitIdle(page);
  assert.ok(await page.isEnabled("#btn-takeback"), "take back is possible while the game goes on");
  await page.click("#btn-resign");
  await page.waitForSelector("#banner:not([hidden])");
  assert.match(await page.textContent("#banner"), /Black wins: White resigned/);
  assert.ok(await page.isHidden("#btn-takeback"), "no take-back button after the end");
  const id = await page.evaluate(() => game.id);
  const res = await apiCall("POST", `/api/games/${id}/takeback`, { side: "white" });
  assert.equal(res.status, 409);
  assert.equal(res.body.code, "game-over");
  assert.equal(res.body.params.outcome, "black:resignation");
  // The game on the server is unchanged.
  const g = (await apiCall("GET", `/api/games/${id}`)).body;
  assert.equal(g.plies.length, 2);
  assert.equal(g.outcome.code, "black:resignation");
});

test("the Turkish page shows Turkish errors", async () => {
  await page.click("#lang-tr");
  await page.waitForFunction(() => document.querySelector("#btn-new").textContent === "Yeni oyun");
  await newGame(page, { opponent: "human" });
  // An illegal typed move: the server's code becomes a Turkish message with the legal moves.
  await page.fill("#move-input", "a3-a6");
  await page.press("#move-input", "Enter");
  let text = await toastMatching(page, /Kuralsız hamle/);
  assert.match(text, /“a3-a6”.*Yasal hamleler: /);
  // Nothing to take back yet (the button is off; ask anyway, as a stale page would).
  await page.evaluate(() => takeBack());
  text = await toastMatching(page, /Geri alınacak hamle yok/);
  // A move after the end: the outcome inside the error is translated from its code.
  await page.click("#btn-resign");
  await page.waitForSelector("#banner:not([hidden])");
  assert.match(await page.textContent("#banner"), /Siyah kazandı: Beyaz terk etti/);
  await page.evaluate(() => typedMove("d3-d4"));
  text = await toastMatching(page, /Oyun bitti/);
  assert.match(text, /Oyun bitti \(Siyah kazandı: Beyaz terk etti\)/);
  await page.click("#lang-en");
  await page.waitForFunction(() => document.querySelector("#btn-new").textContent === "New game");
});

const PARTLY_BROKEN = `[Event "good one"]
[GameType "30"]

1. d3-d4 e6-e5 *

[Event "broken one"]
[GameType "30"]

1. d3-d4 a3-a8 *

[Event "good two"]
[GameType "30"]

1. c3-c4 *
`;

test("a PDN import keeps every good game and lists the broken one with its line", async () => {
  await page.click("#tab-games");
  await page.fill("#pdn-text", PARTLY_BROKEN);
  await page.click("#pdn-form button[type=submit]");
  await toastMatching(page, /Imported 2 games\. 1 game could not be read/);
  await page.waitForSelector("#pdn-report:not([hidden])");
  const items = await page.$$eval("#pdn-report-list li", (ls) => ls.map((l) => l.textContent));
  assert.equal(items.length, 1, items.join("\n"));
  assert.match(items[0], /^Game \d+, line \d+: ./);
  await page.waitForFunction(() => /good two/.test(document.querySelector("#games-body").textContent));
  assert.match(await page.textContent("#games-body"), /good one/);
  assert.doesNotMatch(await page.textContent("#games-body"), /broken one/);
});

test("an engine failure is said plainly, with a Retry button, and never as the person's move", async () => {
  await newGame(page, { opponent: "engine", level: 1, color: "white" });
  // The server's answer to the move says the engine failed, and nothing changes afterwards:
  // the long polls are held while `failing` holds.
  let failing = true;
  const release = [];
  const isMove = (url) => /\/api\/games\/\d+\/move$/.test(url.pathname);
  const isPoll = (url) => /\/api\/games\/\d+$/.test(url.pathname) && url.searchParams.has("wait_version");
  await page.route(isMove, async (route) => {
    const res = await route.fetch();
    const g = await res.json();
    g.engine = { state: "failed", error: "test: the engine crashed" };
    if (g.clock) g.clock.running = null;
    await route.fulfill({ response: res, json: g });
  });
  await page.route(isPoll, async (route) => {
    if (failing) await new Promise((r) => release.push(r));
    // The page may have moved on (or the route been removed) meanwhile.
    await route.continue().catch(() => {});
  });
  try {
    await clickMove(page, "d3", "d4");
    await page.waitForFunction(() => document.querySelector("#status.failed"));
    assert.equal(await page.textContent("#status"), "The engine failed: test: the engine crashed");
    assert.ok(await page.isVisible("#btn-retry"));
    assert.equal(await page.locator("#board .piece.movable").count(), 0, "the board waits for the engine");
    // Retry: the page asks the server, which has the engine's move by now.
    await page.unroute(isMove);
    await page.click("#btn-retry");
    await waitForPlies(page, 2);
    await page.waitForFunction(() => /Your move \(White\)/.test(document.querySelector("#status").textContent));
    assert.ok(await page.isHidden("#btn-retry"));
  } finally {
    failing = false;
    release.forEach((r) => r());
    await page.unroute(isPoll);
  }
});

test("a page opened while the server is unreachable waits and recovers by itself", async () => {
  const id = await page.evaluate(() => game.id);
  const api = (url) => url.pathname.startsWith("/api/");
  await page.route(api, (route) => route.abort("connectionrefused"));
  try {
    await page.reload();
    await page.waitForFunction(() => /Reconnecting/.test(document.querySelector("#status").textContent));
  } finally {
    await page.unroute(api);
  }
  await page.waitForFunction((id) => game && game.id === id && !/Reconnecting/.test(document.querySelector("#status").textContent), id);
});

test("a server restart during the engine's thought recovers without a reload", async () => {
  // Full strength with a clock: the engine thinks for seconds, long enough to be interrupted.
  // c3-c4 leaves the opening book (`damasi book show`), so the engine searches.
  await newGame(page, { opponent: "engine", level: 10, color: "white", time: "3+2" });
  await clickMove(page, "c3", "c4");
  await page.waitForFunction(() => game.engine.state === "thinking" && document.querySelector("#status.thinking"));
  // Remember this very page, and every status it shows from now on.
  await page.evaluate(() => {
    window.samePage = true;
    window.statuses = [];
    const el = document.querySelector("#status");
    new MutationObserver(() => statuses.push({ text: el.textContent, plies: game.plies.length }))
      .observe(el, { childList: true, characterData: true, subtree: true });
  });
  await crashAndRestart();
  await waitForPlies(page, 2, 60000);
  await waitIdle(page);
  assert.ok(await page.evaluate(() => window.samePage), "the page was not reloaded");
  const statuses = await page.evaluate(() => window.statuses);
  const seen = statuses.map((s) => `${s.plies}: ${s.text}`).join(" | ");
  assert.ok(statuses.some((s) => /Reconnecting/.test(s.text)), seen);
  // While Black (the engine) is to move, the page never says it is White's move.
  assert.ok(!statuses.some((s) => s.plies === 1 && /Your move/.test(s.text)), seen);
  await page.waitForFunction(() => /Your move \(White\)/.test(document.querySelector("#status").textContent));
  // The board takes the person's next move again.
  const m = await page.evaluate(() => game.legal[0]);
  await clickMove(page, m.from, m.to);
  assert.equal((await moveTexts(page)).length >= 3, true);
  await page.click("#btn-resign");
  await page.waitForSelector("#banner:not([hidden])");
});

test("no script errors on the page", () => {
  assert.deepEqual(errors, []);
});
