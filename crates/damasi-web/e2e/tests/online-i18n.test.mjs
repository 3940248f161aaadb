// The online pages in the reader's language (issue #33, item 2): Turkish chosen on the main
// page holds in the lobby and in a game (the same stored choice), the online pages have the
// main page's EN / TR switch, settings (⚙, S) and keyboard help (?, ?), and switching back to
// English redraws what the page wrote itself. On a desktop and on a phone.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { launch } from "./browser.mjs";
import { URL_BASE, waitUntilUp } from "./server.mjs";

const opened = [];
before(async () => { await waitUntilUp(); });
after(async () => { for (const b of opened) await b.close(); });

async function open(viewport) {
  const browser = await launch();
  opened.push(browser);
  const page = browser.context.pages()[0] || (await browser.context.newPage());
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  page.setDefaultTimeout(15000);
  await page.setViewportSize(viewport);
  return { page, errors };
}

const text = (page, sel) => page.textContent(sel).then((s) => (s || "").trim());
const noSideScroll = (page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1);

for (const [label, viewport] of [["desktop", { width: 1366, height: 768 }], ["phone", { width: 390, height: 844 }]]) {
  test(`Turkish from the main page holds in the online lobby and game, and back (${label})`, async () => {
    const { page, errors } = await open(viewport);
    // Turkish is chosen on the main page.
    await page.goto(URL_BASE + "/");
    await page.waitForSelector("#board .piece");
    await page.click("#lang-tr");
    assert.equal(await text(page, "#link-online"), "Çevrimiçi oyna");

    // The lobby is in Turkish, with the same switch, settings and help.
    await page.goto(URL_BASE + "/online");
    await page.waitForSelector("body[data-ready='1']");
    assert.equal(await page.getAttribute("html", "lang"), "tr");
    assert.equal(await page.getAttribute("#lang-tr", "aria-pressed"), "true");
    assert.equal(await text(page, "#link-lobby"), "Çevrimiçi salon");
    assert.equal(await text(page, "#btn-guest"), "Misafir olarak devam et");
    assert.equal(await text(page, "#btn-friend"), "Bir arkadaşla oyna");
    await page.waitForFunction(() => /Şu anda kimse oynamıyor|İzle/.test(document.getElementById("live").textContent));
    assert.ok(await noSideScroll(page), "the header fits the width");
    await page.click("#btn-settings");
    await page.waitForFunction(() => document.getElementById("settings-dialog").open);
    assert.equal(await text(page, "#settings-title"), "Ayarlar");
    await page.click("#settings-dialog button[value=ok]");
    await page.keyboard.press("?");
    await page.waitForFunction(() => document.getElementById("help-dialog").open);
    assert.match(await text(page, "#help-dialog"), /Tahtayı çevir/);
    await page.click("#help-dialog button[value=ok]");

    // A game with a friend, as a guest: the game page is in Turkish.
    await page.selectOption("#new-color", "white");
    await page.click("#btn-friend");
    await page.waitForURL(/\/online\/[A-Za-z0-9]+$/);
    await page.waitForSelector("body[data-ready='1']");
    await page.waitForFunction(() => document.getElementById("game-info").textContent.includes("beyaz taşlarla oynuyorsunuz"));
    assert.equal(await text(page, "#status"), "Diğer koltuğa bir rakibin oturması bekleniyor.");
    assert.match(await text(page, "#share-box"), /Rakibiniz bekleniyor/);
    assert.equal(await text(page, "#btn-withdraw"), "Oyunu iptal et");
    assert.equal(await text(page, "#name-top"), "oyuncu bekleniyor");
    assert.match(await page.title(), /^damasi çevrimiçi: oyun /);
    assert.ok(await noSideScroll(page), "the game page fits the width");

    // Back to English: the page's own texts and what it wrote are redrawn.
    await page.click("#lang-en");
    assert.equal(await page.getAttribute("html", "lang"), "en");
    assert.equal(await text(page, "#status"), "Waiting for an opponent to take the other seat.");
    assert.match(await text(page, "#game-info"), /you play white/);
    assert.equal(await text(page, "#btn-withdraw"), "Cancel the game");
    assert.equal(await text(page, "#name-top"), "waiting for a player");
    // The choice is the main page's too.
    await page.goto(URL_BASE + "/");
    await page.waitForSelector("#board .piece");
    assert.equal(await text(page, "#link-online"), "Play online");
    assert.deepEqual(errors, []);
  });
}

test("an error of the server is said in Turkish on the online page", async () => {
  const { page, errors } = await open({ width: 1366, height: 768 });
  await page.goto(URL_BASE + "/");
  await page.evaluate(() => localStorage.setItem("damasi.lang", "tr"));
  await page.goto(URL_BASE + "/online/nosuchgame1");
  await page.waitForSelector("body[data-ready='1']");
  // 404 from its code: "not found" in Turkish, not the server's English.
  assert.match(await text(page, "#status"), /^Bulunamadı/);
  assert.equal(await page.getAttribute("html", "lang"), "tr");
  assert.deepEqual(errors, []);
});
