// Trust on the pages, in Chromium, on a desktop and on a phone: a player reports another from
// a game (the chat kept as evidence; a second report of the same player while one is open is
// refused) and, once that was acted on, from a profile; the operator names a moderator with
// `damasi user mod`; the moderator opens /mod, sees the reports with the chat line, and marks
// the account as playing with an engine; the player sees it on the account panel. A player
// downloads their data from the account panel and closes the account.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { launch, openPage } from "./browser.mjs";
import { URL_BASE, call, signUp, waitUntilUp } from "./server.mjs";

const tag = Date.now().toString(36).slice(-5);
const CHEAT = "cheat_" + tag;
const VICTIM = "victim_" + tag;
const MOD = "hakem_" + tag;
const PASSWORD = "correct-horse-1";
const opened = [];
const tid = (id) => `[data-testid="${id}"]`;

/** Logs `name` in on `page` through the account panel. */
async function logIn(page, name) {
  await page.fill("#acct-name", name);
  await page.fill("#acct-password", PASSWORD);
  await page.click("#btn-login");
  await page.waitForSelector(`${tid("acct-me")}:visible`);
}

let cheat, victim, game;
before(async () => {
  await waitUntilUp();
  cheat = await signUp(CHEAT, PASSWORD);
  victim = await signUp(VICTIM, PASSWORD);
  await signUp(MOD, PASSWORD);
  // A game between them in which the cheat insults the victim.
  const g = await call(cheat, "POST", "/api/online/games", { minutes: 5, increment: 3, rated: true, color: "white" });
  game = g.body.id;
  assert.equal((await call(victim, "POST", `/api/online/games/${game}/join`, {})).status, 200);
  assert.equal((await call(cheat, "POST", `/api/online/games/${game}/move`, { move: "c3-c4" })).status, 200);
  assert.equal((await call(cheat, "POST", `/api/online/games/${game}/chat`, { text: "you are hopeless" })).status, 200);
});
after(async () => { for (const b of opened) await b.close(); });

for (const [device, viewport] of [["desktop", { width: 1200, height: 820 }], ["phone", { width: 390, height: 844 }]]) {
  test(`reports from a game and a profile, acted on by a moderator (${device})`, async () => {
    const { page, errors } = await openPage(viewport, opened);
    page.on("dialog", (d) => d.accept(d.type() === "prompt" ? "Please play fair" : undefined));
    page.setDefaultTimeout(15000);

    // The victim logs in, then reports from the game (once: the desktop run), and from the
    // profile.
    await page.goto(`${URL_BASE}/online`);
    await page.waitForSelector("body[data-ready='1']");
    await logIn(page, VICTIM);
    if (device === "desktop") {
      await page.goto(`${URL_BASE}/online/${game}`);
      await page.waitForSelector(`${tid("btn-game-report")}:visible`);
      await page.click(tid("btn-game-report"));
      await page.waitForSelector("#report-dialog[open]");
      assert.equal(await page.textContent("#report-who"), CHEAT);
      assert.equal(await page.inputValue(tid("report-reason")), "insults");
      await page.fill(tid("report-note"), "see the chat");
      await page.click(tid("btn-report-send"));
      await page.waitForFunction(() => !document.querySelector("#report-dialog").open);
      // One open report of a player at a time: a second one from the profile is refused, and
      // the dialog says so.
      await page.goto(`${URL_BASE}/@/${CHEAT}`);
      await page.waitForSelector(`${tid("btn-report")}:visible`);
      await page.click(tid("btn-report"));
      await page.click(tid("btn-report-send"));
      await page.waitForSelector("text=You reported this player already");
      await page.click("#btn-report-cancel");
    } else {
      // The desktop run's reports were acted on: a new one from the profile.
      await page.goto(`${URL_BASE}/@/${CHEAT}`);
      await page.waitForSelector(`${tid("btn-report")}:visible`);
      await page.click(tid("btn-report"));
      await page.selectOption(tid("report-reason"), "cheating");
      await page.fill(tid("report-note"), "engine moves on " + device);
      await page.click(tid("btn-report-send"));
      await page.waitForFunction(() => !document.querySelector("#report-dialog").open);
    }

    // The operator names the moderator, who logs in and opens /mod.
    execFileSync(process.env.DAMASI_BIN, ["user", "mod", MOD, "--data-dir", process.env.DAMASI_DATA]);
    // In a browser of their own: the victim's session is in this one.
    const modBrowser = await launch();
    opened.push(modBrowser);
    const mod = await modBrowser.context.newPage();
    await mod.setViewportSize(viewport);
    mod.on("pageerror", (e) => errors.push(e.message));
    mod.on("dialog", (d) => d.accept());
    await mod.goto(`${URL_BASE}/online`);
    await mod.waitForSelector("body[data-ready='1']");
    await logIn(mod, MOD);
    await mod.waitForSelector(`${tid("link-mod")}:visible`);
    await mod.click(tid("link-mod"));
    await mod.waitForSelector(tid("mod-report"));
    const reports = await mod.$$eval(tid("mod-report"), (rs) => rs.map((r) => r.textContent));
    const expected = device === "desktop" ? "see the chat" : "engine moves on phone";
    assert.ok(reports.some((r) => r.includes(expected)), reports.join("\n"));
    if (device === "desktop") {
      assert.ok(reports.some((r) => r.includes(`${CHEAT}: you are hopeless`)), "the chat line is kept: " + reports.join("\n"));
    }
    // The engine mark: the reports close and the log says it.
    await mod.click(`${tid("mod-report")} >> nth=0 >> ${tid("mod-engine")}`);
    await mod.waitForFunction(() => document.querySelectorAll('[data-testid="mod-report"]').length === 0);
    assert.match(await mod.textContent(tid("mod-log")), /marked as using an engine/);
    assert.deepEqual(errors, []);
  });
}

test("the cheat sees what was done, and a player downloads their data and closes the account", async () => {
  const browser = await launch();
  opened.push(browser);
  const page = await browser.context.newPage();
  page.on("dialog", (d) => d.accept());
  page.setDefaultTimeout(15000);
  await call(cheat, "POST", `/api/online/games/${game}/resign`, {});
  await page.goto(`${URL_BASE}/online`);
  await page.waitForSelector("body[data-ready='1']");
  await logIn(page, CHEAT);
  await page.waitForSelector(`${tid("mod-notices")}:visible`);
  assert.match(await page.textContent(tid("mod-notices")), /Marked as playing with an engine/);
  assert.doesNotMatch(await page.textContent(tid("mod-notices")), new RegExp(MOD));

  // The data download: the file the link gives is the account's JSON.
  await page.click(`${tid("data-box")} summary`);
  const [download] = await Promise.all([page.waitForEvent("download"), page.click(tid("data-json"))]);
  assert.equal(download.suggestedFilename(), `damasi-${CHEAT}.json`);
  const data = JSON.parse(readFileSync(await download.path(), "utf8"));
  assert.equal(data.account.name, CHEAT);
  assert.ok(data.games.some((g) => g.id === game), JSON.stringify(data.games));
  // Closing: the page is logged out, and the name can no longer log in.
  await page.fill(tid("close-password"), PASSWORD);
  await page.click(tid("btn-close"));
  await page.waitForSelector("#acct-out:visible");
  const again = await call("", "POST", "/api/account/login", { name: CHEAT, password: PASSWORD });
  assert.equal(again.status, 401);
});
