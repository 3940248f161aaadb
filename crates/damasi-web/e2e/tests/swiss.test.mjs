// A Swiss tournament in two browsers: the organiser signs up, creates it with the form at
// /swiss, and joins; a second player joins from the tournament's page, which the organiser
// sees at once (live, over the tournament's socket); the organiser starts it, both pages show
// the round's pairing and a link to the player's game; the game ends and both pages show the
// standings updated and the tournament finished. In Turkish for the second player.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { launch } from "./browser.mjs";
import { URL_BASE, waitUntilUp } from "./server.mjs";

const tag = Date.now().toString(36).slice(-5);
const ALICE = "sw_alice_" + tag;
const BOB = "sw_bob_" + tag;
const PASSWORD = "correct-horse-1";
const opened = [];

before(async () => { await waitUntilUp(); });
after(async () => { for (const b of opened) await b.close(); });

async function open(path) {
  const browser = await launch();
  opened.push(browser);
  const page = browser.context.pages()[0] || (await browser.context.newPage());
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  page.on("dialog", (d) => d.accept());
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

const standings = (page) => page.$$eval("#standings tbody tr", (rows) =>
  rows.map((r) => [...r.querySelectorAll("td")].map((td) => td.textContent.trim())));

/** What the printable view (/swiss/{id}/print) shows: its name, round, tables and legend. */
const printed = (page) => page.evaluate(() => {
  const cells = (sel) => [...document.querySelectorAll(sel)].map((r) => [...r.children].map((c) => c.textContent.trim()));
  return {
    name: document.getElementById("p-name").textContent,
    round: document.getElementById("p-round-title").textContent,
    pairingsHead: cells("#p-pairings thead tr")[0],
    pairings: cells("#p-pairings tbody tr"),
    head: cells("#p-standings thead tr")[0],
    standings: cells("#p-standings tbody tr"),
    legend: document.getElementById("p-legend").textContent,
  };
});

/** The cells of event `id`'s line on a profile. */
const eventRow = (page, id) => page.$$eval(`[data-testid="profile-event"][data-id="${id}"] td`, (tds) => tds.map((td) => td.textContent));

// The two players of both tests (sign-ups are rate-limited per address).
let alice, bob;

test("a Swiss tournament: created, joined, paired, played and ranked, live on both pages", async () => {
  alice = await open("/online");
  await signUp(alice.page, ALICE);
  await alice.page.goto(URL_BASE + "/swiss");
  await alice.page.waitForSelector("body[data-ready='1']");
  assert.ok(await alice.page.isVisible("#create-form"));
  await alice.page.fill("#c-name", "Kulüp kupası " + tag);
  await alice.page.fill("#c-minutes", "5");
  await alice.page.fill("#c-increment", "3");
  await alice.page.fill("#c-rounds", "1");
  await alice.page.fill("#c-pause", "0");
  await alice.page.click("#btn-create");
  await alice.page.waitForURL(/\/swiss\/[A-Za-z0-9]+$/);
  await alice.page.waitForSelector("body[data-ready='1']");
  assert.equal((await alice.page.textContent("#t-name")).trim(), "Kulüp kupası " + tag);
  const url = alice.page.url();
  await alice.page.click("#btn-join");
  await alice.page.waitForFunction(() => document.querySelectorAll("#standings tbody tr").length === 1);

  // Bob signs up, in Turkish, finds the event in the lobby (#44 item 2) and joins from the
  // tournament's page.
  bob = await open("/online");
  await bob.page.click("#lang-tr");
  await signUp(bob.page, BOB);
  const id = url.split("/").pop();
  await bob.page.waitForSelector(`[data-testid="event-${id}"]`);
  assert.match(await bob.page.textContent(`[data-testid="event-${id}"]`), new RegExp(`Kulüp kupası ${tag}.*kayıt açık`));
  await bob.page.click(`[data-testid="event-${id}"] a`);
  await bob.page.waitForURL(url);
  await bob.page.waitForSelector("body[data-ready='1']");
  assert.equal((await bob.page.textContent("#btn-join")).trim(), "Katıl");
  await bob.page.click("#btn-join");
  // Alice's page hears it without a reload.
  await alice.page.waitForFunction(() => document.querySelectorAll("#standings tbody tr").length === 2);
  assert.ok(await bob.page.isVisible("#btn-withdraw"));
  assert.ok(await bob.page.isHidden("#btn-start"), "only the organiser starts it");

  // Alice starts it. Both players, left on the tournament's page, are taken to their game
  // (#44 item 3: they lost it by forfeit), and both make their first move in time.
  await alice.page.click("#btn-start");
  for (const p of [alice.page, bob.page]) await p.waitForURL(/\/online\/[A-Za-z0-9]+$/);
  const gameId = bob.page.url().split("/").pop();
  assert.equal(alice.page.url().split("/").pop(), gameId);
  await alice.page.waitForFunction(() => /you play (white|black)/.test(document.getElementById("game-info").textContent));
  const aliceWhite = /you play white/.test(await alice.page.textContent("#game-info"));
  const [white, black] = aliceWhite ? [alice.page, bob.page] : [bob.page, alice.page];
  const move = (p, m) => p.evaluate(async ([id, m]) => (await fetch(`/api/online/games/${id}/move`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ move: m }) })).status, [gameId, m]);
  assert.equal(await move(white, "c3-c4"), 200);
  assert.equal(await move(black, "f6-f5"), 200);
  await alice.page.waitForFunction(() => document.querySelectorAll("#movelist .mv[data-ply]").length === 2);

  // Bob resigns; back on the tournament's page, the round shows the pairing and the result.
  const status = await bob.page.evaluate(async (id) => {
    const r = await fetch(`/api/online/games/${id}/resign`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    return r.status;
  }, gameId);
  assert.equal(status, 200);
  // The ended game offers no rematch (the tournament pairs the next game) and leads back to
  // the tournament's page, where Alice goes.
  await alice.page.waitForSelector("#event-link:not([hidden])");
  assert.ok(await alice.page.isHidden("#btn-rematch"), "no rematch in a tournament's game");
  await alice.page.click("#event-link");
  await alice.page.waitForURL(/\/swiss\/[A-Za-z0-9]+$/);
  await alice.page.waitForSelector("#rounds .round[data-round='1'] li a");
  const pairing = (await alice.page.textContent("#rounds .round li a")).trim();
  assert.ok(pairing.includes(ALICE) && pairing.includes(BOB), pairing);
  assert.ok(alice.page.url().endsWith(url.split("/").pop()), "coming back stays on the tournament's page");

  // Alice's page: the result, the standings with Alice first on a point, finished.
  await alice.page.waitForFunction(() => /1-0|0-1/.test(document.querySelector("#rounds .round .result")?.textContent || ""));
  await alice.page.waitForFunction(() => document.getElementById("t-info").textContent.startsWith("Finished"));
  const lines = await standings(alice.page);
  assert.equal(lines[0][1], ALICE);
  assert.equal(lines[0][2], "1");
  assert.equal(lines[1][1], BOB);
  assert.equal(lines[1][2], "0");
  assert.ok(await alice.page.isHidden("#btn-join"));
  // The tie-breaks are named and explained under the table, in each reader's language (#44
  // item 5: "BH-C1 BH SB WON" had no legend, and "WON" stayed English in Turkish).
  assert.deepEqual(await alice.page.$$eval("#standings-head th", (ths) => ths.slice(3).map((th) => th.textContent)), ["BH-C1", "BH", "SB", "W"]);
  assert.match(await alice.page.textContent("#tb-legend"), /Buchholz cut 1: the opponents' points added up/);
  // The crosstable: a line a player, a column a round: the opponent's place, colour, result.
  const cross = await alice.page.$$eval("#crosstable tbody tr", (trs) => trs.map((tr) => [...tr.children].map((td) => td.textContent)));
  assert.equal(cross.length, 2);
  assert.match(cross[0].join("|"), new RegExp(`^1\\|${ALICE}\\|2[wb] 1\\|1$`));
  assert.match(cross[1].join("|"), new RegExp(`^2\\|${BOB}\\|1[wb] 0\\|0$`));
  await bob.page.goto(url);
  await bob.page.waitForFunction(() => document.querySelectorAll("#standings-head th").length === 7);
  assert.match(await bob.page.textContent("#rounds h3"), /1\. tur/);
  assert.deepEqual(await bob.page.$$eval("#standings-head th", (ths) => ths.slice(3).map((th) => th.textContent)), ["BH-K1", "BH", "SB", "G"]);
  assert.match(await bob.page.textContent("#tb-legend"), /Galibiyet: tahtada kazanılan oyunlar/);
  // The report file is FIDE's TRF.
  const trf = await alice.page.evaluate(async (href) => (await fetch(href)).text(), await alice.page.getAttribute("#link-trf", "href"));
  assert.match(trf, /^012 Kulüp kupası/m);
  assert.equal((trf.match(/^001 /gm) || []).length, 2);

  // The pairings and standings for the wall (#44): the page's Print link opens them, black on
  // white, with no header, and they say what the API says.
  assert.equal(await alice.page.getAttribute("#link-print", "href"), `/swiss/${id}/print`);
  await alice.page.click("#link-print");
  await alice.page.waitForURL(`${url}/print`);
  await alice.page.waitForSelector("body[data-ready='1']");
  const api = await alice.page.evaluate(async (id) => (await fetch(`/api/swiss/${id}`)).json(), id);
  const wall = await printed(alice.page);
  assert.equal(wall.name, api.name);
  assert.equal(wall.round, "Round 1");
  const last = api.rounds[api.rounds.length - 1];
  assert.deepEqual(wall.pairings, last.games.map((g, i) => [String(i + 1), g.white, g.black, g.result]));
  assert.deepEqual(wall.head, ["#", "Name", "Points", "BH-C1", "BH", "SB", "W"]);
  assert.deepEqual(wall.standings, api.standings.map((l) => [String(l.rank), l.username, String(l.points), ...l.tieBreaks.map(String)]));
  assert.match(wall.legend, /Buchholz cut 1: the opponents' points added up/);
  assert.equal(await alice.page.$("header, nav, #chat"), null);
  await alice.page.emulateMedia({ media: "print" });
  assert.ok(await alice.page.isHidden("#btn-print"), "the buttons are not printed");
  assert.deepEqual(await alice.page.evaluate(() => [getComputedStyle(document.body).color, getComputedStyle(document.body).backgroundColor]),
    ["rgb(0, 0, 0)", "rgb(255, 255, 255)"]);
  await alice.page.emulateMedia({ media: "screen" });
  // In Turkish for Bob.
  assert.equal((await bob.page.textContent("#link-print")).trim(), "Eşleşmeleri ve sıralamayı yazdır (duvar için)");
  await bob.page.goto(`${url}/print`);
  await bob.page.waitForSelector("body[data-ready='1']");
  const duvar = await printed(bob.page);
  assert.equal(duvar.round, "1. tur");
  assert.deepEqual(duvar.pairingsHead, ["Masa", "Beyaz", "Siyah", "Sonuç"]);
  assert.deepEqual(duvar.head.slice(0, 3), ["#", "Ad", "Puan"]);
  assert.deepEqual(duvar.standings, wall.standings);

  // The list shows it.
  await alice.page.goto(URL_BASE + "/swiss");
  await alice.page.waitForSelector("body[data-ready='1']");
  assert.ok((await alice.page.textContent("#t-list")).includes("Kulüp kupası " + tag));
  // And Bob's profile lists it among the events he entered, with his place and points (#44),
  // in each reader's language.
  await alice.page.goto(URL_BASE + "/@/" + BOB);
  await alice.page.waitForSelector("body[data-ready='1']");
  await alice.page.waitForFunction((n) => document.getElementById("pr-tournaments").textContent.includes(n), "Kulüp kupası " + tag);
  assert.deepEqual(await eventRow(alice.page, id), ["Kulüp kupası " + tag, "Swiss", "Finished", "2 of 2", "0"]);
  assert.equal(await alice.page.getAttribute(`[data-testid="profile-event"][data-id="${id}"] a`, "href"), `/swiss/${id}`);
  await bob.page.goto(URL_BASE + "/@/" + ALICE);
  await bob.page.waitForSelector(`[data-testid="profile-event"][data-id="${id}"]`);
  assert.deepEqual(await eventRow(bob.page, id), ["Kulüp kupası " + tag, "İsviçre sistemi", "Bitti", "1 / 2", "1"]);
  assert.deepEqual(alice.errors, []);
  assert.deepEqual(bob.errors, []);
});

test("an arena: created with the form, joined, played, scored live, ended with a podium", async () => {
  const [carol, dave] = [alice, bob];
  await carol.page.goto(URL_BASE + "/swiss");
  await carol.page.waitForSelector("body[data-ready='1']");
  await carol.page.selectOption("#c-kind", "arena");
  assert.ok(await carol.page.isHidden("#c-rounds"));
  await carol.page.fill("#c-name", "Akşam arenası " + tag);
  await carol.page.fill("#c-minutes", "3");
  await carol.page.fill("#c-increment", "2");
  await carol.page.fill("#c-duration", "30");
  await carol.page.click("#btn-create");
  await carol.page.waitForURL(/\/tournament\/[A-Za-z0-9]+$/);
  await carol.page.waitForSelector("body[data-ready='1']");
  const url = carol.page.url();
  await carol.page.click("#btn-join");
  await dave.page.goto(url);
  await dave.page.waitForSelector("body[data-ready='1']");
  assert.equal((await dave.page.textContent("#btn-join")).trim(), "Katıl");
  await dave.page.click("#btn-join");
  await carol.page.waitForFunction(() => document.querySelectorAll("#standings tbody tr").length === 2);
  await carol.page.click("#btn-start");
  // Paired at once: both are taken to their game (#44 item 3).
  for (const p of [carol.page, dave.page]) await p.waitForURL(/\/online\/[A-Za-z0-9]+$/);
  const gameId = dave.page.url().split("/").pop();
  assert.equal(carol.page.url().split("/").pop(), gameId);
  const status = await dave.page.evaluate(async (id) => (await fetch(`/api/online/games/${id}/resign`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" })).status, gameId);
  assert.equal(status, 200);
  // Carol's page: 2 points for the win, on top.
  await carol.page.goto(url);
  await dave.page.goto(url);
  await carol.page.waitForFunction(() => {
    const first = document.querySelector("#standings tbody tr");
    return !!first && first.querySelectorAll("td")[2].textContent === "2";
  });
  assert.match(await carol.page.textContent("#standings tbody tr"), new RegExp(ALICE));
  // The two just met: no new game between them. Carol ends it: the podium.
  await carol.page.click("#btn-end");
  await carol.page.waitForSelector("#podium li");
  assert.match(await carol.page.textContent("#podium li"), new RegExp(ALICE + " · 2"));
  // The games column counts games, the sheet says what each brought (#44: "Games" showed
  // points), and no "Play it" stays after the end.
  const first = await carol.page.$$eval("#standings tbody tr:first-child td", (tds) => tds.map((td) => td.textContent));
  assert.deepEqual(first.slice(2), ["2", "1", "2"]);
  assert.ok(await carol.page.isHidden("[data-testid='my-game']"));
  await dave.page.waitForSelector("#podium li");
  // The arena's wall sheet: the standings as the API gives them, no game being played.
  assert.equal(await carol.page.getAttribute("#link-print", "href"), `${new URL(url).pathname}/print`);
  await carol.page.goto(`${url}/print`);
  await carol.page.waitForSelector("body[data-ready='1']");
  const arena = await carol.page.evaluate(async (path) => (await fetch("/api" + path)).json(), new URL(url).pathname);
  const wall = await printed(carol.page);
  assert.equal(wall.name, arena.name);
  assert.deepEqual(wall.head, ["#", "Name", "Score", "Games", "Points by game"]);
  assert.deepEqual(wall.standings, arena.standing.players.map((p) => [String(p.rank), p.username, String(p.score), String(p.games), p.sheet.scores]));
  assert.equal((await carol.page.textContent("#p-none")).trim(), "No game being played");
  // The list shows the arena once, with its minutes (#44: twice, one copy "undefined /
  // undefined" leading to a blank page); every header leads to the list.
  await carol.page.goto(URL_BASE + "/online");
  await carol.page.waitForSelector("body[data-ready='1']");
  await carol.page.click("[data-testid='link-tournaments']");
  await carol.page.waitForURL(/\/swiss$/);
  await carol.page.waitForFunction((n) => document.getElementById("t-list").textContent.includes(n), "Akşam arenası " + tag);
  const rows = await carol.page.$$eval("#t-list tbody tr", (trs, n) => trs.filter((r) => r.textContent.includes(n)).map((r) => r.textContent), "Akşam arenası " + tag);
  assert.equal(rows.length, 1, JSON.stringify(rows));
  assert.doesNotMatch(rows[0], /undefined/);
  assert.match(rows[0], /arena|arenası/);
  await carol.page.goto(URL_BASE + "/");
  await carol.page.waitForSelector("[data-testid='link-tournaments']");
  assert.equal(await carol.page.getAttribute("[data-testid='link-tournaments']", "href"), "/swiss");
  assert.deepEqual(carol.errors, []);
  assert.deepEqual(dave.errors, []);
});
