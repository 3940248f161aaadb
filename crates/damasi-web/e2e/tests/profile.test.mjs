// A player's page at /@/{name}: two accounts play two rated games and a casual one through
// the API, then one of them opens the other's page in Chromium: the rating graph is drawn
// (one point per rated game), the games are listed and filtered, the record is right; the
// visitor follows, blocks (the blocked player's challenge is refused), unblocks and
// challenges from the page; the page speaks Turkish too; the leaderboards page opens.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { launch } from "./browser.mjs";
import { URL_BASE, call, signUp, waitUntilUp } from "./server.mjs";

const tag = Date.now().toString(36).slice(-5);
const ADA = "ada_" + tag;
const BEN = "ben_" + tag;
const PASSWORD = "correct-horse-1";
const opened = [];
const tid = (id) => `[data-testid="${id}"]`;

/** A game of White and Black (cookies): one move each, then `loser` resigns. */
async function game(white, black, loser, rated) {
  const g = await call(white, "POST", "/api/online/games", { minutes: 3, increment: 2, rated, color: "white" });
  assert.equal(g.status, 200, JSON.stringify(g.body));
  const id = g.body.id;
  assert.equal((await call(black, "POST", `/api/online/games/${id}/join`, {})).status, 200);
  assert.equal((await call(white, "POST", `/api/online/games/${id}/move`, { move: "c3-c4" })).status, 200);
  assert.equal((await call(black, "POST", `/api/online/games/${id}/move`, { move: "f6-f5" })).status, 200);
  assert.equal((await call(loser, "POST", `/api/online/games/${id}/resign`, {})).status, 200);
}

let ada, ben;
before(async () => {
  await waitUntilUp();
  ada = await signUp(ADA, PASSWORD);
  ben = await signUp(BEN, PASSWORD);
  await game(ada, ben, ben, true); // Ada wins
  await game(ben, ada, ben, true); // Ada wins again, as Black
  await game(ada, ben, ada, false); // a casual loss
});
after(async () => { for (const b of opened) await b.close(); });

test("a player's page: rating graph, games with filters, follow, block and challenge", async () => {
  const browser = await launch();
  opened.push(browser);
  const page = await browser.context.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  page.setDefaultTimeout(15000);
  await page.goto(`${URL_BASE}/@/${ADA}`);
  await page.waitForSelector("body[data-ready='1']");

  // Anyone sees the profile: the name, the ratings, the record and the graph.
  assert.equal(await page.textContent(tid("profile-name")), ADA);
  assert.match(await page.textContent(tid("profile-record")), /^3 games: 2 won, 0 drawn, 1 lost$/);
  assert.match(await page.textContent(tid("profile-rating-blitz")), /^Blitz 1\d{3}\? \(2 games\)$/);
  const graph = await page.$$eval(`${tid("rating-graph")} svg polyline[data-speed="blitz"]`, (ls) => ls.map((l) => l.getAttribute("points").split(" ").length));
  assert.deepEqual(graph, [2], "one line with a point per rated game");
  assert.equal(await page.$$eval(`${tid("rating-graph")} circle`, (c) => c.length), 2);
  // The graph rises: the second win is higher on the screen (smaller y).
  const ys = await page.$$eval(`${tid("rating-graph")} circle`, (c) => c.map((e) => Number(e.getAttribute("cy"))));
  assert.ok(ys[1] < ys[0], `${ys}`);
  assert.equal(await page.isHidden("#pr-actions"), true, "no actions for a visitor not logged in");

  // The games, newest first, and the filters.
  const rows = () => page.$$eval(tid("profile-game"), (trs) => trs.map((tr) => [...tr.cells].map((c) => c.textContent)));
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="profile-game"]').length === 3);
  let list = await rows();
  assert.equal(list[0][1], "lost");
  assert.equal(list[0][3], "casual");
  assert.match(list[1][1], /^won \(\+\d+\)$/);
  assert.equal(list[1][0], `${BEN} – ${ADA}`);
  assert.match(await page.textContent(tid("pr-page")), /Page 1 of 1 \(3 games\)/);
  await page.selectOption(tid("f-rated"), "true");
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="profile-game"]').length === 2);
  await page.selectOption(tid("f-result"), "loss");
  await page.waitForFunction(() => document.querySelector('[data-testid="profile-games"]').textContent.includes("No games."));
  await page.selectOption(tid("f-rated"), "");
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="profile-game"]').length === 1);
  assert.equal((await rows())[0][1], "lost");
  await page.selectOption(tid("f-result"), "");
  await page.selectOption(tid("f-speed"), "bullet");
  await page.waitForFunction(() => document.querySelector('[data-testid="profile-games"]').textContent.includes("No games."));
  await page.selectOption(tid("f-speed"), "blitz");
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="profile-game"]').length === 3);

  // Ben logs in on the page: follow.
  await page.fill("#acct-name", BEN);
  await page.fill("#acct-password", PASSWORD);
  await page.click("#btn-login");
  await page.waitForSelector(`${tid("btn-follow")}:visible`);
  assert.equal(await page.textContent(tid("btn-follow")), "Follow");
  await page.click(tid("btn-follow"));
  await page.waitForFunction(() => document.querySelector('[data-testid="btn-follow"]').textContent === "Unfollow");
  assert.equal(await page.getAttribute(tid("btn-follow"), "aria-pressed"), "true");
  const following = await call(ben, "GET", "/api/rel/following");
  assert.equal(following.status, 200);
  // NDJSON: one line, a JSON object (read as one by call() when it is the only line).
  const first = typeof following.body === "string" ? JSON.parse(following.body.split("\n")[0]) : following.body;
  assert.equal(first.username, ADA);

  // Block: Ada's challenge to Ben is refused; the follow is gone.
  await page.click(tid("btn-block"));
  await page.waitForFunction(() => document.querySelector('[data-testid="btn-block"]').textContent === "Unblock");
  assert.equal(await page.textContent(tid("btn-follow")), "Follow");
  const refused = await call(ada, "POST", `/api/challenge/${BEN}`, { clock: { limit: 300, increment: 3 } });
  assert.equal(refused.status, 403);
  assert.equal(refused.body.code, "blocked");
  await page.click(tid("btn-block"));
  await page.waitForFunction(() => document.querySelector('[data-testid="btn-block"]').textContent === "Block");

  // The page in Turkish.
  await page.click("#lang-tr");
  assert.equal(await page.textContent(tid("btn-follow")), "Takip et");
  assert.match(await page.textContent(tid("profile-record")), /^3 oyun: 2 galibiyet, 0 beraberlik, 1 yenilgi$/);
  await page.click("#lang-en");

  // A challenge from the page opens the game, which waits for Ada.
  await page.click(tid("btn-challenge"));
  await page.fill(tid("ch-minutes"), "5");
  await page.fill(tid("ch-increment"), "3");
  await page.click(tid("btn-ch-send"));
  await page.waitForURL(/\/online\/[A-Za-z0-9]{8}$/);
  const id = page.url().split("/").pop();
  // On the game's page, the players' names open their pages.
  await page.waitForSelector(`a.who[href="/@/${BEN}"]`);
  const pending = await call(ada, "GET", `/api/online/games/${id}`);
  assert.equal(pending.status, 200);

  // Ada, in the lobby in her own browser, sees the challenge (#44 item 4: it reached only the
  // API's event stream): the header's count and the lobby's list with Accept and Decline. She
  // declines, and Ben's game page says who declined and why.
  const adaBrowser = await launch();
  opened.push(adaBrowser);
  const cut = ada.indexOf("=");
  await adaBrowser.context.addCookies([{ name: ada.slice(0, cut), value: ada.slice(cut + 1), url: URL_BASE }]);
  const adaPage = await adaBrowser.context.newPage();
  adaPage.setDefaultTimeout(15000);
  await adaPage.goto(`${URL_BASE}/online`);
  await adaPage.waitForSelector(`[data-testid="challenge-${id}"]`);
  assert.match(await adaPage.textContent(`[data-testid="challenge-${id}"]`), new RegExp(`${BEN} challenges you: 5\\+3`));
  assert.equal(await adaPage.textContent('[data-testid="challenge-badge"]'), "Challenges: 1");
  await adaPage.click(`[data-testid="challenge-${id}"] [data-testid="challenge-decline"]`);
  await adaPage.waitForSelector(`[data-testid="challenge-${id}"]`, { state: "detached" });
  assert.ok(await adaPage.isHidden('[data-testid="challenge-badge"]'));
  await page.waitForFunction((n) => document.getElementById("toast").textContent.includes(`${n} declined the challenge: not now`), ADA);

  // The leaderboards: five speeds (correspondence too); nobody's rating is settled yet.
  await page.goto(`${URL_BASE}/player`);
  await page.waitForSelector("body[data-ready='1']");
  assert.equal(await page.$$eval(`${tid("leaderboard")} section`, (s) => s.length), 5);
  assert.equal(await page.getAttribute(tid("link-leaders"), "aria-current"), "page");
  // Provisional players are listed all the same, marked "?" (#44 item 7: a new club's
  // leaderboards were "Nobody yet" after a whole tournament).
  await page.waitForFunction(() => /\d\?/.test(document.querySelector('[data-testid="leaders-blitz"]').textContent));
  assert.match(await page.textContent(tid("leaders-blitz")), new RegExp(`(${ADA}|${BEN}) \\d+\\?`));

  assert.deepEqual(errors, []);

  // The address of nobody's profile says so, and shows no profile's parts (#44: it was
  // titled with the name and said "the game may have been deleted").
  await page.goto(`${URL_BASE}/@/nobody_${tag}`);
  await page.waitForFunction(() => document.querySelector('[data-testid="profile-name"]').textContent === "No such player");
  assert.match(await page.textContent(tid("profile-record")), new RegExp(`There is no player called nobody_${tag}`));
  assert.equal(await page.isVisible(tid("profile-games")), false);
  assert.equal(await page.title(), "No such player");

  // A game aborted before any move is listed as aborted, not lost (#44: an arena game never
  // played showed as a loss on the profile).
  const g = await call(ada, "POST", "/api/online/games", { minutes: 3, increment: 2, rated: false, color: "white" });
  assert.equal(g.status, 200, JSON.stringify(g.body));
  assert.equal((await call(ben, "POST", `/api/online/games/${g.body.id}/join`, {})).status, 200);
  const aborted = await call(ada, "POST", `/api/online/games/${g.body.id}/abort`, {});
  assert.equal(aborted.status, 200, JSON.stringify(aborted.body));
  await page.goto(`${URL_BASE}/@/${BEN}`);
  await page.waitForSelector(`#pr-games a[href="/online/${g.body.id}"]`);
  const cell = await page.$eval(`#pr-games a[href="/online/${g.body.id}"]`, (a) => a.closest("tr").children[1].textContent);
  assert.equal(cell, "aborted");
});
