// An account's safety on the online page, in Chromium, on a desktop and on a phone.
//
// Reset by mail: the test runs its own SMTP server (aiosmtpd from target/py-venv, writing a
// maildir) and its own `damasi serve --smtp-url ... --mail-from ...`, so that the runner's
// server stays without mail. A player signs up on /online, gives an e-mail address in the
// account panel, and opens the link of the confirmation mail (read from the maildir); logged
// out, they ask for a password reset for an unknown address and for theirs (the page says the
// same for both; no mail goes to the unknown one), open the reset mail's link, set a new
// password and are logged in; the old password is then refused and the new one works.
//
// Two factors, on the runner's server: a player sets up two-factor authentication in the
// account panel's security box with their password, turns it on with a code computed by the
// test's own RFC 6238 TOTP from the secret shown, and sees ten recovery codes; logging in then
// asks for a code and a wrong one is refused with a message; a recovery code logs in once and
// is refused the next time; the authenticator's current code logs in.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createHmac } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createConnection, createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { openPage } from "./browser.mjs";
import { URL_BASE, waitUntilUp } from "./server.mjs";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "..");
// The run script makes sure the venv has aiosmtpd and names its python (DAMASI_PY).
const PY = process.env.DAMASI_PY || join(ROOT, "target", "py-venv", "bin", "python");
const BIN = process.env.DAMASI_BIN || join(ROOT, "target", "release", "damasi");

const tag = Date.now().toString(36).slice(-5);
const PASSWORD = "correct-horse-1";
const NEW_PASSWORD = "battery-staple-7";
const DEVICES = [["desktop", { width: 1200, height: 820 }], ["phone", { width: 390, height: 844 }]];
const opened = [];
const tid = (id) => `[data-testid="${id}"]`;

// ---------------------------------------------------------------------------------------------
// TOTP (RFC 6238), written here apart from the server's: HMAC-SHA1 of the 30-s step, 6 digits.

const BASE32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

/** The bytes of a base32 text (RFC 4648; spaces and padding ignored). */
function base32(text) {
  let bits = 0;
  let value = 0;
  const out = [];
  for (const c of text.replace(/[\s=]/g, "").toUpperCase()) {
    const v = BASE32.indexOf(c);
    if (v < 0) throw new Error(`not base32: ${JSON.stringify(text)}`);
    value = ((value << 5) | v) & 0xfff;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

/** The TOTP code of `key` at Unix time `unixS` (seconds) with `digits` digits. */
function totp(key, unixS, digits = 6) {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(unixS / 30)));
  const h = createHmac("sha1", key).update(counter).digest();
  const offset = h[h.length - 1] & 0xf;
  const n = h.readUInt32BE(offset) & 0x7fffffff;
  return String(n % 10 ** digits).padStart(digits, "0");
}

const nowS = () => Date.now() / 1000;
const stepOf = (unixS) => Math.floor(unixS / 30);

// ---------------------------------------------------------------------------------------------
// Mail: the SMTP server's maildir, read as a mail reader does.

/** `raw` (bytes as latin1 characters) decoded from quoted-printable, as UTF-8. */
function quotedPrintable(raw) {
  const s = raw.replace(/=\r?\n/g, "");
  const bytes = [];
  for (let i = 0; i < s.length; i++) {
    const hex = s.slice(i + 1, i + 3);
    if (s[i] === "=" && /^[0-9A-Fa-f]{2}$/.test(hex)) {
      bytes.push(parseInt(hex, 16));
      i += 2;
    } else {
      bytes.push(s.charCodeAt(i) & 0xff);
    }
  }
  return Buffer.from(bytes).toString("utf8");
}

/** A header's RFC 2047 encoded words (=?utf-8?B?...?= or ?Q?) decoded. */
function decodeWords(value) {
  return value
    .replace(/\?=\s+=\?/g, "?==?")
    .replace(/=\?[^?]+\?([bBqQ])\?([^?]*)\?=/g, (_, enc, text) =>
      enc.toUpperCase() === "B"
        ? Buffer.from(text, "base64").toString("utf8")
        : quotedPrintable(text.replace(/_/g, " ")));
}

/** One mail file: its headers (lower-case names) and its body decoded. */
function parseMail(path) {
  const raw = readFileSync(path, "latin1");
  const m = /\r?\n\r?\n/.exec(raw);
  const head = m ? raw.slice(0, m.index) : raw;
  const rawBody = m ? raw.slice(m.index + m[0].length) : "";
  const headers = {};
  for (const line of head.replace(/\r?\n[ \t]+/g, " ").split(/\r?\n/)) {
    const i = line.indexOf(":");
    if (i > 0) headers[line.slice(0, i).trim().toLowerCase()] = decodeWords(line.slice(i + 1).trim());
  }
  const encoding = (headers["content-transfer-encoding"] || "7bit").toLowerCase();
  const body = encoding === "quoted-printable" ? quotedPrintable(rawBody)
    : encoding === "base64" ? Buffer.from(rawBody.replace(/\s+/g, ""), "base64").toString("utf8")
    : Buffer.from(rawBody, "latin1").toString("utf8");
  return { headers, body };
}

// ---------------------------------------------------------------------------------------------
// The mail server pair: aiosmtpd and a `damasi serve` that mails through it.

const mail = { dir: "", url: "", smtp: null, server: null, log: "" };

async function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.on("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** Whether something accepts connections on 127.0.0.1:`port`. */
function accepts(port) {
  return new Promise((resolve) => {
    const c = createConnection({ host: "127.0.0.1", port }, () => { c.end(); resolve(true); });
    c.on("error", () => resolve(false));
  });
}

/** Waits until `check()` is true (polled every 100 ms), or fails saying `what`. */
async function until(what, check, timeoutMs = 15000) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}\n${mail.log}`);
    await sleep(100);
  }
}

/** Stops a child process: TERM, then KILL if it lingers. */
async function stop(child) {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  const late = await Promise.race([gone.then(() => false), sleep(5000, true, { ref: false })]);
  if (late) child.kill("SIGKILL");
}

/** The mails in the maildir so far. */
function mails() {
  const dir = join(mail.dir, "maildir", "new");
  if (!existsSync(dir)) return [];
  return readdirSync(dir).map((f) => parseMail(join(dir, f)));
}

/** Waits for the mail to `to` whose subject matches `subject`. */
function mailTo(to, subject) {
  return until(`a mail to ${to} (${subject})`, () =>
    mails().find((m) => (m.headers.to || "").includes(to) && subject.test(m.headers.subject || "")));
}

/** The first link to `${mail.url}/account/${what}/TOKEN` in a mail's body. */
function linkIn(m, what) {
  const found = m.body.match(new RegExp(`${mail.url.replace(/[.]/g, "\\.")}/account/${what}/[0-9a-f]{16,64}`));
  assert.ok(found, `no /account/${what}/ link in:\n${m.body}`);
  return found[0];
}

// ---------------------------------------------------------------------------------------------
// Requests and pages.

// Every browser of the run reaches the servers from 127.0.0.1, so all the tests share the
// limit on password checks (log-ins, two-factor changes) per client address: ten at once,
// then one more every 6 s. On the runner's server this file paces its own checks to half
// that burst, so that the next file still finds some at once (trust.test.mjs logs in without
// waiting); and when the server refuses one anyway (429: an earlier file used them), the
// request is made again after the Retry-After it names, as a person would on reading the
// message. Anything else is the answer.
const CHECK_EVERY_MS = 6000;
const CHECKS_AT_ONCE = 5;
/** When this file's password checks on the runner's server are all paid back (the limiter's
 * "theoretical arrival time" for them alone). */
let checksDue = 0;

/** Waits until one more password check of this file fits in its share, CHECKS_AT_ONCE. */
async function paced() {
  const wait = checksDue - (CHECKS_AT_ONCE - 1) * CHECK_EVERY_MS - Date.now();
  if (wait > 0) await sleep(wait);
  checksDue = Math.max(checksDue, Date.now()) + CHECK_EVERY_MS;
}

/** A JSON POST to `base + path` from node; the status and body. */
async function post(base, path, body) {
  for (let attempt = 0; ; attempt++) {
    const res = await fetch(base + path, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    if (res.status !== 429 || attempt === 5) return { status: res.status, body: await res.json().catch(() => null) };
    await sleep(Number(res.headers.get("retry-after") || 1) * 1000);
  }
}

/** Runs `action`, which submits a form of `page`, and returns the page's POST to `path`;
 * `checks`: the request checks a password on the runner's server (paced). */
async function submit(page, path, action, checks = false) {
  for (let attempt = 0; ; attempt++) {
    if (checks) await paced();
    const answer = page.waitForResponse((r) => r.request().method() === "POST" && new URL(r.url()).pathname === path);
    await action();
    const res = await answer;
    if (res.status() !== 429 || attempt === 5) return res;
    await sleep(Number(res.headers()["retry-after"] || 1) * 1000);
  }
}

/** A fresh browser on `base`/online at `viewport`; the page errors are collected. */
async function openOnline(base, viewport) {
  const { page, errors } = await openPage(viewport, opened);
  await page.goto(`${base}/online`);
  await page.waitForSelector("body[data-ready='1']");
  return { page, errors };
}

/** Empties the toast, so that the next message is surely a new one. */
async function clearToast(page) {
  await page.evaluate(() => {
    const t = document.getElementById("toast");
    t.hidden = true;
    t.textContent = "";
  });
}

/** Waits for the toast to show a text matching `re`, and returns the text. */
async function toastSays(page, re) {
  await page.waitForFunction((src) => {
    const t = document.getElementById("toast");
    return !t.hidden && new RegExp(src).test(t.textContent);
  }, re.source);
  return page.textContent(tid("toast"));
}

/** Waits until the account panel shows `name` logged in. */
async function loggedInAs(page, name) {
  await page.waitForSelector(`${tid("acct-me")}:visible`);
  await page.waitForFunction((n) => document.querySelector('[data-testid="acct-me"]').textContent === n, name);
}

/** Signs `name` up on the account panel. */
async function signUpOnPage(page, name) {
  await page.fill(tid("acct-name"), name);
  await page.fill(tid("acct-password"), PASSWORD);
  const res = await submit(page, "/api/account/signup", () => page.click(tid("btn-signup")));
  assert.equal(res.status(), 200, await res.text());
  await loggedInAs(page, name);
}

async function logOut(page) {
  await page.click(tid("btn-logout"));
  await page.waitForSelector("#acct-out:visible");
}

/** Submits the log-in form (name and password filled already, and the code if `code`). */
function logInSubmit(page, code) {
  return submit(page, "/api/account/login", async () => {
    if (code !== undefined) await page.fill(tid("acct-code"), code);
    await page.click(tid("btn-login"));
  }, true);
}

/** Fills the log-in form and submits it with the password only: the page asks for the code. */
async function logInAskingCode(page, name) {
  await page.fill(tid("acct-name"), name);
  await page.fill(tid("acct-password"), PASSWORD);
  await clearToast(page);
  const res = await logInSubmit(page);
  assert.equal(res.status(), 401);
  assert.equal((await res.json()).code, "two-factor-needed");
  await page.waitForSelector(`${tid("acct-code")}:visible`);
  await toastSays(page, /Give the code from your authenticator app/);
}

// ---------------------------------------------------------------------------------------------

before(async () => {
  // The TOTP of this file against RFC 6238's published SHA-1 vector (T = 59 s, 8 digits), and
  // its base32 reading against the same secret's base32 text.
  const rfcKey = Buffer.from("12345678901234567890", "ascii");
  assert.equal(totp(rfcKey, 59, 8), "94287082");
  assert.equal(totp(rfcKey, 1111111109, 8), "07081804");
  assert.deepEqual(base32("GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"), rfcKey);

  await waitUntilUp();
  assert.ok(existsSync(PY), `no python at ${PY} (the run script makes target/py-venv)`);
  mail.dir = mkdtempSync(join(tmpdir(), "damasi-mail-e2e-"));
  const smtpPort = await freePort();
  mail.smtp = spawn(PY, ["-m", "aiosmtpd", "-n", "-l", `127.0.0.1:${smtpPort}`, "-c", "aiosmtpd.handlers.Mailbox", join(mail.dir, "maildir")], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  for (const s of [mail.smtp.stdout, mail.smtp.stderr]) s.on("data", (d) => { mail.log += d; });
  await until("the SMTP server", () => accepts(smtpPort));

  mail.server = spawn(BIN, [
    "serve", "--port", "0", "--data-dir", join(mail.dir, "data"),
    "--smtp-url", `smtp://127.0.0.1:${smtpPort}`, "--mail-from", "damasi <noreply@dama.example>",
  ], { stdio: ["ignore", "pipe", "pipe"] });
  for (const s of [mail.server.stdout, mail.server.stderr]) s.on("data", (d) => { mail.log += d; });
  mail.url = await until("the mail server's address", () => (/^damasi: open (http:\/\/[^/\s]+)\//m.exec(mail.log) || [])[1]);
  const health = await (await fetch(mail.url + "/api/health")).json();
  assert.equal(health.mail, true, "the server says it sends no mail");
});

// Children are stopped even when the test process ends another way.
process.on("exit", () => {
  for (const c of [mail.server, mail.smtp]) if (c && c.exitCode === null) c.kill("SIGKILL");
});

after(async () => {
  for (const b of opened) await b.close();
  await stop(mail.server);
  await stop(mail.smtp);
  if (mail.dir) rmSync(mail.dir, { recursive: true, force: true });
});

for (const [device, viewport] of DEVICES) {
  const d = device[0];

  test(`two-factor authentication with an authenticator's code and recovery codes (${device})`, async () => {
    const name = `tf${d}_${tag}`;
    const { page, errors } = await openOnline(URL_BASE, viewport);
    await signUpOnPage(page, name);

    // Set up with the password: the QR code and the secret to type in.
    await page.waitForSelector(`${tid("security-box")}:visible`);
    await page.click(`${tid("security-box")} summary`);
    await page.waitForSelector("#tf-setup-form:visible");
    assert.match(await page.textContent(tid("tf-state")), /^Off/);
    await page.fill(tid("tf-password"), PASSWORD);
    const setup = await submit(page, "/api/account/two-factor/setup", () => page.click(tid("btn-tf-setup")), true);
    assert.equal(setup.status(), 200, await setup.text());
    await page.waitForSelector("#tf-enable-form:visible");
    const secret = (await page.textContent(tid("tf-secret"))).trim();
    assert.match(secret, /^[A-Z2-7 =]+$/, "a base32 secret");
    const key = base32(secret);
    assert.ok(key.length >= 16, `a secret of ${key.length} bytes`);
    assert.match(await page.getAttribute(tid("tf-qr"), "src"), /^data:image\/svg\+xml/);

    // Turned on with the authenticator's current code: ten recovery codes, shown once.
    const at = nowS();
    const usedStep = stepOf(at);
    await page.fill(tid("tf-code"), totp(key, at));
    const enable = await submit(page, "/api/account/two-factor/enable", () => page.click(tid("btn-tf-enable")), true);
    assert.equal(enable.status(), 200, await enable.text());
    await page.waitForSelector(`${tid("tf-codes")}:visible`);
    const recovery = (await page.textContent(tid("tf-codes"))).split("\n").map((s) => s.trim()).filter(Boolean);
    assert.equal(recovery.length, 10, recovery.join("\n"));
    assert.equal(new Set(recovery).size, 10);
    for (const c of recovery) assert.match(c, /^[0-9a-f]{4}(-[0-9a-f]{4}){3}$/);
    assert.match(await page.textContent(tid("tf-state")), /^On/);
    assert.ok(await page.isVisible("#tf-disable-form"));
    assert.ok(await page.isHidden("#tf-setup-form"));
    await page.click("#btn-tf-codes-done");
    assert.ok(await page.isHidden(tid("tf-codes")));

    // The password alone: the page asks for the code. A wrong one is refused, visibly.
    await logOut(page);
    assert.ok(await page.isHidden(tid("acct-code")));
    await logInAskingCode(page, name);
    const fits = [-30, 0, 30].map((dt) => totp(key, nowS() + dt));
    let wrong = fits[1];
    while (fits.includes(wrong)) wrong = String((Number(wrong) + 1) % 1e6).padStart(6, "0");
    await clearToast(page);
    const refused = await logInSubmit(page, wrong);
    assert.equal(refused.status(), 401);
    assert.equal((await refused.json()).code, "two-factor-wrong");
    await toastSays(page, /The code is wrong, or was used already/);
    assert.ok(await page.isVisible("#acct-out"));

    // A recovery code instead logs in, once: the next time it is refused, visibly.
    const withRecovery = await logInSubmit(page, recovery[3]);
    assert.equal(withRecovery.status(), 200, await withRecovery.text());
    await loggedInAs(page, name);
    assert.ok(await page.isHidden(tid("acct-code")));
    await logOut(page);
    await logInAskingCode(page, name);
    await clearToast(page);
    const again = await logInSubmit(page, recovery[3]);
    assert.equal(again.status(), 401);
    assert.equal((await again.json()).code, "two-factor-wrong");
    await toastSays(page, /The code is wrong, or was used already/);
    assert.ok(await page.isVisible("#acct-out"));

    // The authenticator's code logs in: the current one, computed as the app does, in a step
    // after the one that turned it on (the server takes a step's code once).
    const next = (usedStep + 1) * 30000 - Date.now();
    if (next > 0) await sleep(next);
    const ok = await logInSubmit(page, totp(key, nowS()));
    assert.equal(ok.status(), 200, await ok.text());
    await loggedInAs(page, name);
    assert.ok(await page.isHidden(tid("acct-code")));
    assert.deepEqual(errors, []);
  });

  test(`an address confirmed by mail, and a password reset by mail (${device})`, async () => {
    const name = `mail${d}_${tag}`;
    const address = `${name}@dama.example`;
    const unknown = `nobody${d}_${tag}@dama.example`;
    const { page, errors } = await openOnline(mail.url, viewport);
    await signUpOnPage(page, name);

    // The address, given in the account panel with the password: unconfirmed until its link.
    await page.waitForSelector(`${tid("email-box")}:visible`);
    assert.equal(await page.textContent(tid("email-shown")), "none");
    await page.click(`${tid("email-box")} summary`);
    await page.waitForSelector("#email-form:visible");
    await page.fill(tid("email-new"), address);
    await page.fill(tid("email-password"), PASSWORD);
    await clearToast(page);
    const set = await submit(page, "/api/account/email", () => page.click(tid("btn-email")));
    assert.equal(set.status(), 200, await set.text());
    await toastSays(page, new RegExp(`A confirmation link was mailed to ${address}`));
    assert.equal(await page.textContent(tid("email-shown")), `${address} (not confirmed)`);

    const confirmation = await mailTo(address, new RegExp(`confirm the address of ${name}$`));
    assert.match(confirmation.headers.from, /noreply@dama\.example/);
    assert.match(confirmation.body, new RegExp(`^Hello ${name},`));
    await page.goto(linkIn(confirmation, "confirm-email"));
    await page.waitForSelector("body[data-ready='1']");
    await toastSays(page, /Your e-mail address is confirmed/);
    assert.equal(new URL(page.url()).pathname, "/online");
    await page.waitForFunction((a) => document.querySelector('[data-testid="email-shown"]').textContent === a, address);

    // Logged out, "forgot your password?": an unknown address first, then the player's. The
    // page and the server answer both alike.
    await logOut(page);
    await page.click(`${tid("forgot")} summary`);
    await page.waitForSelector(`${tid("forgot-email")}:visible`);
    const said = [];
    for (const email of [unknown, address]) {
      await page.fill(tid("forgot-email"), email);
      await clearToast(page);
      const res = await submit(page, "/api/account/password-reset", () => page.click(tid("btn-forgot")));
      assert.equal(res.status(), 200);
      said.push({ body: await res.json(), toast: await toastSays(page, /If a confirmed address has an account/) });
    }
    assert.deepEqual(said[0], said[1]);

    // The reset mail's link opens the page's reset form; the new password logs in.
    const reset = await mailTo(address, new RegExp(`a new password for ${name}$`));
    await page.goto(linkIn(reset, "reset"));
    await page.waitForSelector(`${tid("acct-reset")}:visible`);
    await page.waitForFunction((n) => document.getElementById("reset-who").textContent === `A new password for ${n}`, name);
    assert.ok(await page.isHidden("#acct-out"));
    await page.fill(tid("reset-password"), NEW_PASSWORD);
    const done = await submit(page, `${new URL(page.url()).pathname.replace("/account/reset/", "/api/account/password-reset/")}`,
      () => page.click(tid("btn-reset")));
    // (Its body is gone with the page, which goes on to /online.)
    assert.equal(done.status(), 200);
    await page.waitForURL((u) => u.pathname === "/online");
    await page.waitForSelector("body[data-ready='1']");
    await loggedInAs(page, name);

    // No mail went to the unknown address: one would have been handed to the SMTP server
    // before the reset mail that came (the requests were answered one after the other).
    const strays = mails().filter((m) => (m.headers.to || "").includes(unknown));
    assert.deepEqual(strays, []);
    // The old password no longer logs in; the new one does.
    const old = await post(mail.url, "/api/account/login", { name, password: PASSWORD });
    assert.equal(old.status, 401, JSON.stringify(old.body));
    const fresh = await post(mail.url, "/api/account/login", { name, password: NEW_PASSWORD });
    assert.equal(fresh.status, 200, JSON.stringify(fresh.body));
    assert.deepEqual(errors, []);
  });
}
