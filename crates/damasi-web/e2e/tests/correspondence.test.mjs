// Correspondence games on the page (issue #29): Alice makes a game of 3 days a move for a
// friend from the lobby's form ("Correspondence: 3 days"), Bob takes the seat by the link; the
// game says its control, the clocks read in days and hours, and the lobby lists the game under
// "your games waiting for your move" for the one to move, with a notice and the count in the
// tab's title; after Alice's move it is in Bob's list and gone from hers.
// Then Alice organises a correspondence Swiss with the tournament form (days instead of a clock).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { launch } from "./browser.mjs";
import { URL_BASE, waitUntilUp } from "./server.mjs";

const tag = Date.now().toString(36).slice(-5);
const ALICE = "corra_" + tag;
const BOB = "corrb_" + tag;
const PASSWORD = "correct-horse-1";
const opened = [];

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

async function signUp(page, name) {
  await page.fill("#acct-name", name);
  await page.fill("#acct-password", PASSWORD);
  await page.click("#btn-signup");
  await page.waitForFunction((n) => document.getElementById("acct-me").textContent === n, name);
}

const sq = (name) => `#board .sq[data-sq="${name}"]`;

before(async () => { await waitUntilUp(); });
after(async () => { for (const b of opened) await b.close(); });

// Alice, signed up by the first test (sign-ups are rate-limited per address).
let alice;

test("a correspondence game by link, its clocks in days, and the games waiting for your move", async () => {
  alice = await open("/online");
  const bob = await open("/online");
  await signUp(alice.page, ALICE);
  await signUp(bob.page, BOB);

  // The form offers the correspondence controls; choosing one sets the clock fields aside.
  const offered = await alice.page.$$eval("#new-days option", (os) => os.map((o) => o.textContent));
  assert.deepEqual(offered, ["Real time (minutes + increment)", "Correspondence: 1 day", "Correspondence: 2 days",
    "Correspondence: 3 days", "Correspondence: 5 days", "Correspondence: 7 days", "Correspondence: 14 days"]);
  await alice.page.selectOption("#new-days", "3");
  assert.ok(await alice.page.isDisabled("#new-minutes"));
  await alice.page.selectOption("#new-color", "white");
  await alice.page.click("#btn-friend");
  await alice.page.waitForURL(/\/online\/[A-Za-z0-9]+$/);
  await alice.page.waitForSelector("#share-box:not([hidden])");
  const link = await alice.page.inputValue("#share-url");
  const id = link.split("/").pop();
  assert.match(await alice.page.textContent("#game-info"), /Correspondence .*3 days a move/);

  await bob.page.goto(link);
  await bob.page.waitForSelector("#seat-box:not([hidden])");
  await bob.page.click("#btn-seat");
  await bob.page.waitForFunction(() => /you play black/.test(document.getElementById("game-info").textContent));
  // The clocks read in days and hours: Black's whole turn, White's running from the start.
  await alice.page.waitForFunction(() => /Your turn/.test(document.getElementById("status").textContent));
  assert.equal((await alice.page.textContent("#clock-top")).trim(), "3d 0h");
  assert.match((await alice.page.textContent("#clock-bottom")).trim(), /^(3d 0h|2d 23h)$/);
  assert.ok(await alice.page.$eval("#clock-bottom", (el) => el.classList.contains("running")));
  assert.ok(await alice.page.isHidden("#first-move"), "no 30 s countdown for a first move");

  // In the lobby, the game waits for Alice's move: listed, with a notice and the tab's count.
  // (Alice's own session, in a second tab.)
  const lobby = { page: await alice.page.context().newPage(), errors: [] };
  lobby.page.on("pageerror", (e) => lobby.errors.push(e.message));
  lobby.page.setDefaultTimeout(15000);
  await lobby.page.goto(URL_BASE + "/online");
  await lobby.page.waitForSelector("body[data-ready='1']");
  await lobby.page.waitForSelector(`[data-testid="waiting-${id}"]`);
  assert.match(await lobby.page.textContent(`[data-testid="waiting-${id}"]`), new RegExp(`${BOB}.*(2d 23h|3d 0h) left.*3 days a move`));
  assert.equal(await lobby.page.textContent("#waiting-notice"), "It is your move in 1 game.");
  // Listed once: not again among the games in progress by its id (#44; the account's event
  // stream tells the lobby of every game going on as it opens, this one included).
  await lobby.page.waitForTimeout(1500);
  assert.equal(await lobby.page.locator(`#my-games a[href="/online/${id}"]`).count(), 0);
  assert.match(await lobby.page.title(), /^\(1\) /);

  // Alice moves: the game leaves her list and enters Bob's.
  await alice.page.click(sq("c3"));
  await alice.page.click(sq("c4"));
  await alice.page.waitForFunction(() => document.querySelectorAll("#movelist .mv[data-ply]").length === 1);
  await lobby.page.waitForFunction(() => document.getElementById("waiting-box").hidden);
  assert.doesNotMatch(await lobby.page.title(), /^\(/);
  await bob.page.goto(URL_BASE + "/online");
  await bob.page.waitForSelector(`[data-testid="waiting-${id}"]`);
  assert.match(await bob.page.textContent(`[data-testid="waiting-${id}"]`), new RegExp(ALICE));

  for (const p of [alice, bob, lobby]) assert.deepEqual(p.errors, []);
});

test("a correspondence Swiss from the tournament form", async () => {
  const page = alice.page;
  await page.goto(URL_BASE + "/swiss");
  await page.waitForSelector("body[data-ready='1']");
  const offered = await page.$$eval("#c-days option", (os) => os.map((o) => o.value));
  assert.deepEqual(offered, ["", "1", "2", "3", "5", "7", "14"]);
  await page.selectOption("#c-days", "3");
  assert.ok(await page.isDisabled("#c-minutes"), "days set the clock aside");
  await page.fill("#c-name", "Mektup kupası " + tag);
  await page.fill("#c-rounds", "2");
  await page.click("#btn-create");
  await page.waitForURL(/\/swiss\/[A-Za-z0-9]+$/);
  await page.waitForSelector("body[data-ready='1']");
  assert.match(await page.textContent("#t-info"), /3 days a move/);
  const id = page.url().split("/").pop();
  const summary = await page.evaluate((i) => fetch("/api/swiss/" + i).then((r) => r.json()), id);
  assert.equal(summary.days, 3);
  assert.equal(summary.nbRounds, 2);
  assert.deepEqual(alice.errors, []);
});
