// Starts, waits for and kills the server under test. The run script starts the first one; a
// test that restarts the server writes the new process id where the script will find it.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { openSync, readFileSync, writeFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";

const env = process.env;
export const URL_BASE = env.DAMASI_URL;

export async function waitUntilUp(timeoutMs = 15000) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    try {
      const r = await fetch(URL_BASE + "/api/health");
      if (r.ok) return;
    } catch (_) { /* not up yet */ }
    if (Date.now() > end) throw new Error("server did not start at " + URL_BASE);
    await sleep(100);
  }
}

function alive(pid) {
  try { process.kill(pid, 0); return true; } catch (_) { return false; }
}

// Kills the server without warning (as a crash would) and starts it again on the same port
// and data directory.
export async function crashAndRestart() {
  const pid = Number(readFileSync(env.DAMASI_PID_FILE, "utf8").trim());
  process.kill(pid, "SIGKILL");
  for (let i = 0; i < 100 && alive(pid); i++) await sleep(50);
  const log = openSync(env.DAMASI_LOG, "a");
  const child = spawn(env.DAMASI_BIN, ["serve", "--port", env.DAMASI_PORT, "--data-dir", env.DAMASI_DATA], {
    stdio: ["ignore", log, log],
    detached: false,
  });
  child.unref();
  writeFileSync(env.DAMASI_PID_FILE, String(child.pid));
  await waitUntilUp();
}

/** A JSON request to the server under test as `cookie`'s account ("" for nobody): the status,
 * the body (JSON, or the text when it is not), the headers. */
export async function call(cookie, method, path, body) {
  const headers = { cookie };
  if (body !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(URL_BASE + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  let json = null;
  try { json = JSON.parse(text); } catch (_) { json = text; }
  return { status: res.status, body: json, headers: res.headers };
}

/** Signs `name` up with `password` over HTTP; its session cookie. */
export async function signUp(name, password) {
  const r = await call("", "POST", "/api/account/signup", { name, password });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.headers.get("set-cookie").split(";")[0];
}
