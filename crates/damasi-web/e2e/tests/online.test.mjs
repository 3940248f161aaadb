// Online play in three browsers (three profiles, so three sessions): two people sign up, one
// creates a rated game and sends the link, the other takes the seat, a third watches; they
// play a forced line with a double capture, chat, one page reloads mid-game, the server
// crashes and a network drops (the pages reconnect by themselves), one side resigns, and every
// page shows the result and both accounts their new ratings. Then: rematch, lobby seeks and
// pools, a guest taking the seat by link, takeback and draw offers.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { launch } from "./browser.mjs";
import { URL_BASE, waitUntilUp, crashAndRestart } from "./server.mjs";

const tag = Date.now().toString(36).slice(-5);
const ALICE = "alice_" + tag;
const BOB = "bob_" + tag;
const PASSWORD = "correct-horse-1";

const opened = [];
const SHOTS = process.env.DAMASI_SCREENSHOTS || "";

// With DAMASI_SCREENSHOTS set: saves the page as online-NAME.png there.
async function shot(name, page) {
  if (!SHOTS) return;
  mkdirSync(SHOTS, { recursive: true });
  await page.evaluate(() => { document.getElementById("toast").hidden = true; });
  await page.waitForTimeout(250);
  await page.screenshot({ path: join(SHOTS, "online-" + name + ".png") });
}

async function open(path) {
  const browser = await launch();
  opened.push(browser);
  const page = browser.context.pages()[0] || (await browser.context.newPage());
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  page.setDefaultTimeout(15000);
  await page.goto(URL_BASE + path);
  await page.waitForSelector("body[data-ready='1']");
  return { page, errors };
}

const sq = (name) => `#board .sq[data-sq="${name}"]`;
const tid = (id) => `[data-testid="${id}"]`;

async function signUp(page, name) {
  await page.fill("#acct-name", name);
  await page.fill("#acct-password", PASSWORD);
  await page.click("#btn-signup");
  await page.waitForFunction((n) => document.getElementById("acct-me").textContent === n, name);
}

const plies = (page) => page.$$eval("#movelist .mv[data-ply]", (els) => els.map((e) => e.textContent));

async function waitPlies(page, n) {
  await page.waitForFunction((n) => document.querySelectorAll("#movelist .mv[data-ply]").length === n, n);
}

// Clicks the squares in order and waits until the server has the move (the move list grows).
async function play(page, ...squares) {
  const n = (await plies(page)).length;
  for (const s of squares) await page.click(sq(s));
  await waitPlies(page, n + 1);
}

// The page follows the game over its WebSocket (not only by reloading it after a failure).
async function waitSocket(page, connects = 1) {
  await page.waitForFunction((n) => document.body.dataset.socket === "open" && Number(document.body.dataset.connects) >= n, connects);
}

// Both clocks as shown: { white, black, running } (ms).
function clocks(page) {
  return page.evaluate(() => {
    const out = { running: null };
    for (const el of document.querySelectorAll(".clock")) {
      out[el.dataset.side] = Number(el.dataset.ms);
      if (el.classList.contains("running")) out.running = el.dataset.side;
    }
    return out;
  });
}

async function rating(page, speed) {
  const el = await page.waitForSelector(tid("rating-" + speed));
  return Number(await el.getAttribute("data-rating"));
}

let alice, bob, carol;

before(async () => {
  await waitUntilUp();
});

after(async () => {
  for (const b of opened) await b.close();
});

test("two players sign up, play a rated game by link with a spectator, and see the result", async () => {
  alice = await open("/online");
  bob = await open("/online");
  await signUp(alice.page, ALICE);
  await signUp(bob.page, BOB);
  // A new account has no rated games yet.
  assert.equal(await alice.page.$(tid("rating-blitz")), null);

  // Alice creates a rated 5+3 game as White and gets the link.
  await alice.page.fill("#new-minutes", "5");
  await alice.page.fill("#new-increment", "3");
  await alice.page.selectOption("#new-color", "white");
  await alice.page.check("#new-rated");
  await alice.page.click("#btn-friend");
  await alice.page.waitForURL(/\/online\/[A-Za-z0-9]+$/);
  await alice.page.waitForSelector("#share-box:not([hidden])");
  const link = await alice.page.inputValue("#share-url");
  assert.match(link, /\/online\/[A-Za-z0-9]+$/);
  const id = link.split("/").pop();
  assert.match(await alice.page.textContent("#game-info"), /Rated .*5\+3.*you play white/);
  assert.match(await alice.page.textContent("#status"), /Waiting for an opponent/);

  // Bob opens the link, on a phone: the seat is free, and its button is on the first screen
  // (next to the board, not under the account box); he takes it and plays Black.
  const desktop = bob.page.viewportSize();
  await bob.page.setViewportSize({ width: 390, height: 844 });
  await bob.page.goto(link);
  await bob.page.waitForSelector("#seat-box:not([hidden])");
  const seat = await bob.page.locator("#btn-seat").boundingBox();
  assert.ok(seat && seat.y + seat.height <= 844, `the seat button is on a phone's first screen: ${JSON.stringify(seat)}`);
  if (desktop) await bob.page.setViewportSize(desktop);
  await bob.page.click("#btn-seat");
  await bob.page.waitForFunction(() => /you play black/.test(document.getElementById("game-info").textContent));
  await bob.page.waitForFunction(() => document.getElementById("seat-box").hidden);
  // On a phone the game's actions are on the first screen too, above the account box (#44:
  // they were at y = 869-943 on an 844 px screen).
  await bob.page.setViewportSize({ width: 390, height: 844 });
  const actions = await bob.page.locator("#game-actions").boundingBox();
  const account = await bob.page.locator("#account").boundingBox();
  assert.ok(actions && actions.y + actions.height <= 844, `the game's actions are on a phone's first screen: ${JSON.stringify(actions)}`);
  assert.ok(account && account.y > actions.y, "the account box comes after the game's actions");
  if (desktop) await bob.page.setViewportSize(desktop);
  // Each sees the other's name and provisional rating; Bob's board is turned for Black.
  await alice.page.waitForFunction((n) => document.getElementById("name-top").textContent.includes(n), BOB);
  assert.match(await alice.page.textContent("#name-top"), /\(1500\?\)/);
  assert.match(await bob.page.textContent("#name-top"), new RegExp(ALICE));
  assert.match(await bob.page.textContent("#name-bottom"), new RegExp(BOB));
  await alice.page.waitForFunction(() => /Your turn/.test(document.getElementById("status").textContent));
  assert.ok(await alice.page.isHidden("#share-box"), "the link box goes once the game starts");

  // Carol has no account and watches.
  carol = await open("/online/" + id);
  for (const p of [alice.page, bob.page, carol.page]) await waitSocket(p);
  assert.match(await carol.page.textContent("#game-info"), /you are watching/);
  assert.ok(await carol.page.isHidden("#seat-box"), "no seat is free");
  assert.ok(await carol.page.isHidden("#btn-resign"));
  // The lobby lists the game as live.
  const lobby = await open("/online");
  await lobby.page.waitForSelector(tid("live-" + id));
  await shot("lobby", lobby.page);

  // One message per ply: the game's states carry the legal moves, the page asks for none.
  const askedMoves = [];
  alice.page.on("request", (req) => { if (new URL(req.url()).pathname === "/api/moves") askedMoves.push(req.url()); });
  // The moves: d3-d4 d6-d5, then White's forced double capture d4xd6xd8 with promotion,
  // chosen square by square.
  // Neither first move is timed (lichess's convention): no clock runs, and the side to move
  // sees a 30 s countdown to make it.
  await alice.page.waitForFunction(() => /You have \d+ s to make the first move/.test(document.getElementById("first-move").textContent));
  assert.match(await bob.page.textContent("#first-move"), /White has \d+ s to make the first move/);
  assert.equal(await alice.page.$(".clock.running"), null, "White's clock does not run before the first move");
  await play(alice.page, "d3", "d4");
  await waitPlies(bob.page, 1);
  await bob.page.waitForFunction(() => /You have \d+ s to make the first move/.test(document.getElementById("first-move").textContent));
  assert.equal(await bob.page.$(".clock.running"), null, "nor Black's before its first");
  await play(bob.page, "d6", "d5");
  await alice.page.waitForFunction(() => document.getElementById("first-move").hidden);
  await alice.page.waitForFunction(() => document.querySelector(".clock.running")?.dataset.side === "white");
  await alice.page.waitForFunction(() => /capture is forced/.test(document.getElementById("status").textContent));
  await alice.page.click(sq("d4"));
  await alice.page.click(sq("d6"));
  await alice.page.waitForFunction(() => /Continue the capture/.test(document.getElementById("status").textContent));
  assert.equal(await alice.page.$$eval("#board .piece.captured", (els) => els.map((e) => e.dataset.sq).join()), "d5");
  await shot("capture", alice.page);
  await alice.page.click(sq("d8"));
  await waitPlies(alice.page, 3);
  for (const p of [alice.page, bob.page, carol.page]) {
    await waitPlies(p, 3);
    assert.deepEqual(await plies(p), ["d3-d4", "d6-d5", "d4xd6xd8=K"]);
    // The last move is drawn with its whole route, and the man became a king.
    assert.equal(await p.getAttribute("#board", "data-last-move"), "d4-d6-d8");
    await p.waitForSelector('#board .piece.w.k[data-sq="d8"]');
    assert.equal(await p.$('#board .piece[data-sq="d5"]'), null, "the captured men are gone");
    assert.equal(await p.$('#board .piece[data-sq="d7"]'), null);
  }

  assert.deepEqual(askedMoves, [], "no GET /api/moves during the game");
  // Chat: Bob reads Alice's line; the spectator does not (the players' chat is theirs).
  await alice.page.fill("#chat-input", "good luck!");
  await alice.page.press("#chat-input", "Enter");
  await bob.page.waitForFunction((t) => document.getElementById("chat-lines").textContent.includes(t), "good luck!");
  await shot("spectator", carol.page);
  // The spectator is told the chat is the players' own, not shown an empty box (#44).
  assert.ok(await carol.page.isVisible('[data-testid="chat-private"]'));
  assert.ok(await carol.page.isHidden("#chat-lines"));
  assert.ok(await alice.page.isHidden('[data-testid="chat-private"]'));
  await bob.page.check("#chat-hide");
  assert.ok(await bob.page.isHidden("#chat-lines"));

  // Bob's clock runs; he reloads: the same moves, the same clocks (his still running).
  await bob.page.waitForFunction(() => document.querySelector(".clock.running")?.dataset.side === "black");
  const before = await clocks(bob.page);
  await bob.page.reload();
  await bob.page.waitForSelector("body[data-ready='1']");
  await waitPlies(bob.page, 3);
  assert.deepEqual(await plies(bob.page), ["d3-d4", "d6-d5", "d4xd6xd8=K"]);
  await bob.page.waitForFunction(() => document.querySelector(".clock.running")?.dataset.side === "black");
  const after = await clocks(bob.page);
  assert.equal(after.white, before.white, "White's clock stands still");
  assert.ok(after.black <= before.black, `${after.black} <= ${before.black}`);
  assert.ok(after.black > before.black - 8000, `the reload cost no more than it took: ${after.black} vs ${before.black}`);
  assert.ok(await bob.page.isHidden("#chat-lines"), "the chat stays hidden for Bob");
  assert.match(await bob.page.textContent("#game-info"), /you play black/);

  // The game goes on over the new socket; the spectator sees it.
  await waitSocket(bob.page);
  await play(bob.page, "a6", "a5");
  await waitPlies(alice.page, 4);
  await waitPlies(carol.page, 4);
  for (const p of [alice.page, bob.page, carol.page]) assert.ok(await p.isHidden("#conn"), "no connection trouble shown");

  // The server crashes and comes back: every page reconnects by itself and the game goes on.
  const connects = await Promise.all([alice.page, bob.page, carol.page].map((p) => p.evaluate(() => Number(document.body.dataset.connects))));
  await crashAndRestart();
  for (const [i, p] of [alice.page, bob.page, carol.page].entries()) await waitSocket(p, connects[i] + 1);
  // The spectator's network goes away and comes back: the page opens a new connection.
  await carol.page.context().setOffline(true);
  await carol.page.waitForSelector("#conn:not([hidden])");
  await carol.page.context().setOffline(false);
  await waitSocket(carol.page, connects[2] + 2);
  await play(alice.page, "h3", "h4");
  await waitPlies(bob.page, 5);
  await waitPlies(carol.page, 5);
  assert.deepEqual(await plies(carol.page), ["d3-d4", "d6-d5", "d4xd6xd8=K", "a6-a5", "h3-h4"]);

  // Bob resigns (with a confirmation).
  await bob.page.click("#btn-resign");
  await bob.page.click("#btn-resign-yes");
  for (const p of [alice.page, bob.page, carol.page]) {
    await p.waitForSelector("#result:not([hidden])");
    const text = await p.textContent("#result");
    assert.match(text, /White wins: Black resigned/);
    assert.match(text, new RegExp(`${ALICE} \\+\\d+`));
    assert.match(text, new RegExp(`${BOB} −\\d+`));
  }
  // Both account boxes show the new blitz ratings.
  const [ra, rb] = [await rating(alice.page, "blitz"), await rating(bob.page, "blitz")];
  assert.ok(ra > 1500, `the winner gains: ${ra}`);
  assert.ok(rb < 1500, `the loser loses: ${rb}`);
  assert.match(await alice.page.textContent(tid("rating-blitz")), /\d+\?/, "still provisional after one game");
  await shot("result", bob.page);
  // The players may ask for a rematch; the spectator may not.
  assert.ok(await alice.page.isVisible("#btn-rematch"));
  assert.ok(await carol.page.isHidden("#btn-rematch"));

  // The finished game is replayed move by move (a click, the arrow keys), analysed in Study,
  // and downloaded as PDN, by the spectator too.
  await carol.page.waitForSelector("#after-game:not([hidden])");
  await carol.page.click('#movelist .mv[data-ply="3"]');
  await carol.page.waitForFunction(() => document.getElementById("board").dataset.lastMove === "d4-d6-d8");
  await carol.page.keyboard.press("ArrowLeft");
  await carol.page.waitForFunction(() => document.getElementById("board").dataset.lastMove === "d6-d5");
  assert.ok(await carol.page.$('#board .piece.b[data-sq="d5"]'), "the position after 2 plies");
  await carol.page.keyboard.press("End");
  await carol.page.waitForFunction(() => document.getElementById("board").dataset.lastMove === "h3-h4");
  const analyse = await carol.page.getAttribute("#link-analyse", "href");
  assert.match(analyse, /^\/#\/study\?fen=.*moves=d3-d4%2Cd6-d5%2Cd4xd6xd8%3DK%2Ca6-a5%2Ch3-h4/);
  const pdnHref = await carol.page.getAttribute("#link-pdn", "href");
  const pdn = await carol.page.evaluate((u) => fetch(u).then((r) => r.text()), pdnHref);
  assert.match(pdn, new RegExp(`\\[White "${ALICE}"\\]`));
  assert.match(pdn, /\[Result "1-0"\]/);

  // Review saves the game among the saved games once: pressed again, from another tab, the
  // same copy opens (#44: each press added another copy).
  const reviewed = [];
  for (let i = 0; i < 2; i++) {
    const tab = await carol.page.context().newPage();
    await tab.goto(carol.page.url());
    await tab.waitForSelector("#after-game:not([hidden])");
    await tab.click("#btn-review");
    await tab.waitForFunction(() => /^#\/review\/\d+$/.test(location.hash));
    reviewed.push(await tab.evaluate(() => location.hash));
    await tab.close();
  }
  assert.equal(reviewed[1], reviewed[0]);

  for (const x of [alice, bob, carol, lobby]) assert.deepEqual(x.errors, []);
});

test("a rematch asked by both opens the next game with the colours swapped", async () => {
  await alice.page.click("#btn-rematch");
  await bob.page.waitForFunction(() => /Accept rematch/.test(document.getElementById("btn-rematch").textContent));
  const first = alice.page.url();
  await bob.page.click("#btn-rematch");
  for (const p of [alice.page, bob.page]) await p.waitForURL((u) => u.href !== first && /\/online\/[A-Za-z0-9]+$/.test(u.pathname));
  await alice.page.waitForSelector("body[data-ready='1']");
  await bob.page.waitForSelector("body[data-ready='1']");
  await alice.page.waitForFunction(() => /you play black/.test(document.getElementById("game-info").textContent));
  await bob.page.waitForFunction(() => /Your turn/.test(document.getElementById("status").textContent));
  // The spectator of the old game is told where it went.
  await carol.page.waitForSelector("#rematch-link:not([hidden])");
  // Bob (White now) aborts before anyone moved.
  await bob.page.click("#btn-abort");
  await alice.page.waitForSelector("#result:not([hidden])");
  assert.match(await alice.page.textContent("#result"), /abort/i);
});

test("a refused action shows the server's message", async () => {
  // A guest cannot take the seat of a rated game: the page says so.
  const { page } = await open("/online");
  await page.click("#btn-guest");
  await page.waitForFunction(() => !document.getElementById("acct-guest").hidden);
  await page.fill("#new-minutes", "3");
  await page.check("#new-rated");
  await page.click("#btn-friend");
  await page.waitForFunction(() => {
    const t = document.getElementById("toast");
    return !t.hidden && /guests play casual games only/i.test(t.textContent);
  });
});

test("in the lobby, a taken seek and a pool pairing open the game for both players", async () => {
  for (const p of [alice.page, bob.page]) {
    await p.goto(URL_BASE + "/online");
    await p.waitForSelector("body[data-ready='1']");
  }
  // Alice's account box lists her last games: the rated win over Bob among them.
  await alice.page.waitForFunction((n) => document.querySelector('[data-testid="recent-games"]').textContent.includes(n), BOB);
  assert.match(await alice.page.textContent(tid("recent-games")), /1–0 · 5\+3 rated \(\+\d+\)/);
  // Bob posts a casual 3+2 seek; Alice takes it from her lobby.
  await bob.page.fill("#new-minutes", "3");
  await bob.page.fill("#new-increment", "2");
  await bob.page.selectOption("#new-color", "black");
  await bob.page.uncheck("#new-rated");
  await bob.page.click("#btn-seek");
  // Bob's lobby still opens the game after a reload.
  await bob.page.waitForSelector('[data-testid^="seek-"]');
  await bob.page.reload();
  await bob.page.waitForSelector("body[data-ready='1']");
  await bob.page.waitForSelector("body[data-events='ready']");
  const take = await alice.page.waitForSelector('[data-testid^="take-"]', { timeout: 10000 });
  assert.match(await alice.page.textContent(tid("seeks")), new RegExp(`${BOB}.*3\\+2.*casual.*black`));
  await take.click();
  await alice.page.waitForURL(/\/online\/[A-Za-z0-9]+$/);
  await bob.page.waitForURL(/\/online\/[A-Za-z0-9]+$/);
  assert.equal(alice.page.url(), bob.page.url(), "both are in the same game");
  await alice.page.waitForFunction(() => /Casual .*3\+2 · you play white/.test(document.getElementById("game-info").textContent));
  await bob.page.waitForFunction(() => /you play black/.test(document.getElementById("game-info").textContent));
  await alice.page.click("#btn-abort");
  await bob.page.waitForSelector("#result:not([hidden])");

  // The 5+3 pool: Alice waits (and may cancel), Bob comes, both are paired.
  for (const p of [alice.page, bob.page]) {
    await p.goto(URL_BASE + "/online");
    await p.waitForSelector(tid("pool-5+3"));
  }
  await alice.page.click(tid("pool-5+3"));
  await alice.page.waitForSelector("#pool-wait:not([hidden])");
  assert.match(await alice.page.textContent(tid("pool-wait-text")), /5\+3/);
  await bob.page.waitForFunction(() => /1 waiting/.test(document.querySelector('[data-testid="pool-5+3"]').textContent), null, { timeout: 10000 });
  await bob.page.click(tid("pool-5+3"));
  await bob.page.waitForURL(/\/online\/[A-Za-z0-9]+$/);
  await alice.page.waitForURL(/\/online\/[A-Za-z0-9]+$/);
  assert.equal(alice.page.url(), bob.page.url(), "both are in the same game");
  await alice.page.waitForFunction(() => /Rated .*5\+3/.test(document.getElementById("game-info").textContent));
  await alice.page.click("#btn-abort");
  await bob.page.waitForSelector("#result:not([hidden])");
});

test("a seek under other rules says them in the lobby and in the game, and is casual", async () => {
  for (const p of [alice.page, bob.page]) {
    await p.goto(URL_BASE + "/online");
    await p.waitForSelector("body[data-ready='1']");
  }
  await bob.page.check("#new-rated");
  await bob.page.selectOption("#new-variant", "turkish; king-beats-lone-man");
  // Other rules are casual: the page unticks and disables "Rated".
  assert.equal(await bob.page.isChecked("#new-rated"), false);
  assert.equal(await bob.page.isDisabled("#new-rated"), true);
  await bob.page.fill("#new-minutes", "3");
  await bob.page.fill("#new-increment", "2");
  await bob.page.click("#btn-seek");
  await bob.page.waitForSelector('[data-testid^="seek-"]');
  const take = await alice.page.waitForSelector('[data-testid^="take-"]', { timeout: 10000 });
  assert.match(await alice.page.textContent(tid("seeks")), new RegExp(`${BOB}.*3\\+2.*casual.*Turkish \\(federation\\) \\+ a king beats a lone man`));
  await take.click();
  await alice.page.waitForURL(/\/online\/[A-Za-z0-9]+$/);
  await alice.page.waitForFunction(() => /Casual .*3\+2 · Turkish \(federation\) \+ a king beats a lone man · you play/.test(document.getElementById("game-info").textContent));
  // In Turkish too.
  await bob.page.waitForURL(/\/online\/[A-Za-z0-9]+$/);
  await bob.page.click('[data-lang="tr"]');
  await bob.page.waitForFunction(() => /dama tek taşı yener/.test(document.getElementById("game-info").textContent));
  await bob.page.click('[data-lang="en"]');
  await alice.page.click("#btn-abort");
  await bob.page.waitForSelector("#result:not([hidden])");
  // Back to the federation's rules, "Rated" can be ticked again.
  await bob.page.goto(URL_BASE + "/online");
  await bob.page.waitForSelector("body[data-ready='1']");
  await bob.page.selectOption("#new-variant", "standard");
  assert.equal(await bob.page.isDisabled("#new-rated"), false);
});

test("a visitor with the link of a casual game takes the seat as a guest", async () => {
  await alice.page.goto(URL_BASE + "/online");
  await alice.page.waitForSelector("body[data-ready='1']");
  await alice.page.fill("#new-minutes", "10");
  await alice.page.fill("#new-increment", "0");
  await alice.page.uncheck("#new-rated");
  await alice.page.click("#btn-friend");
  await alice.page.waitForSelector("#share-box:not([hidden])");
  const link = await alice.page.inputValue("#share-url");
  const dave = await open(new URL(link).pathname);
  await dave.page.waitForSelector("#seat-box:not([hidden])");
  assert.match(await dave.page.textContent("#seat-text"), /play as a guest/);
  await dave.page.click("#btn-seat");
  await dave.page.waitForFunction(() => !document.getElementById("acct-guest").hidden);
  await dave.page.waitForFunction(() => /you play/.test(document.getElementById("game-info").textContent));
  await waitSocket(dave.page, 2);
  await alice.page.waitForFunction(() => !/waiting for a player/.test(document.getElementById("name-top").textContent));
  // Chat is off by default for a guest, who can turn it on; then the guest's socket acts for
  // the guest: a chat line goes through.
  assert.equal(await dave.page.isChecked("#chat-hide"), true, "chat starts hidden for a guest");
  assert.equal(await dave.page.isHidden("#chat-input"), true);
  await dave.page.uncheck("#chat-hide");
  await dave.page.fill("#chat-input", "hi from a guest");
  await dave.page.press("#chat-input", "Enter");
  await alice.page.waitForFunction(() => /hi from a guest/.test(document.getElementById("chat-lines").textContent));

  // A takeback proposed and accepted, a draw offer declined, then one accepted.
  const aliceWhite = /you play white/.test(await alice.page.textContent("#game-info"));
  const [w, b] = aliceWhite ? [alice.page, dave.page] : [dave.page, alice.page];
  await play(w, "d3", "d4");
  await waitPlies(b, 1);
  await play(b, "h6", "h5");
  await waitPlies(w, 2);
  await w.click("#btn-takeback");
  await b.waitForSelector("#takeback-ask:not([hidden])");
  await b.click("#btn-takeback-yes");
  for (const p of [w, b]) await waitPlies(p, 0);
  await play(w, "c3", "c4");
  await waitPlies(b, 1);
  await play(b, "a6", "a5");
  await waitPlies(w, 2);
  // A premove: Black enters a5-a4 while White thinks; it is played once White has moved.
  await b.click(sq("a5"));
  await b.click(sq("a4"));
  await b.waitForSelector(sq("a4") + ".premove");
  // (Black's reply comes at once: the move list may go from two plies to four.)
  await w.click(sq("d3"));
  await w.click(sq("d4"));
  for (const p of [w, b]) await waitPlies(p, 4);
  assert.equal((await plies(b))[3], "a5-a4");
  await w.click("#btn-draw");
  await w.waitForFunction(() => document.getElementById("btn-draw").disabled);
  await b.waitForSelector("#draw-ask:not([hidden])");
  // On a phone the offer is on the first screen, next to the board.
  const wide = b.viewportSize();
  await b.setViewportSize({ width: 390, height: 844 });
  await b.evaluate(() => window.scrollTo(0, 0));
  const ask = await b.locator("#draw-ask").boundingBox();
  assert.ok(ask && ask.y + ask.height <= 844, `the draw offer is on a phone's first screen: ${JSON.stringify(ask)}`);
  if (wide) await b.setViewportSize(wide);
  // The status line says an offer waits.
  assert.match(await b.textContent("#status"), /Your opponent offers a draw/);
  await b.click("#btn-draw-no");
  await b.waitForSelector("#draw-ask", { state: "hidden" });
  await w.waitForFunction(() => !document.getElementById("btn-draw").disabled);
  // The one who offered is told it was declined.
  await w.waitForFunction(() => /Your draw offer was declined/.test(document.getElementById("toast").textContent));
  await b.click("#btn-draw");
  await w.waitForSelector("#draw-ask:not([hidden])");
  await w.click("#btn-draw-yes");
  for (const p of [w, b]) {
    await p.waitForSelector("#result:not([hidden])");
    assert.match(await p.textContent("#result"), /draw/i);
    assert.doesNotMatch(await p.textContent("#result"), /Rating:/, "a casual game changes no rating");
  }
  // After the game: a new opponent at the same control, or the lobby.
  assert.ok(await w.isVisible("#link-lobby-back"));
  assert.match(await w.getAttribute("#link-new-opponent", "href"), /^\/online(\?pool=|$)/);
  assert.deepEqual(dave.errors, []);
});
