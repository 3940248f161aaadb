// Launches Debian's Chromium headless through playwright-core (no browser download).
import { chromium } from "playwright-core";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const BASE = process.env.DAMASI_URL || "http://127.0.0.1:8099";

export async function launch() {
  const profile = mkdtempSync(join(tmpdir(), "damasi-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    headless: true,
    args: [
      "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
      "--disable-background-networking", "--disable-component-update", "--disable-sync",
    ],
    viewport: { width: 1200, height: 820 },
    locale: "en-US",
  });
  const close = async () => {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  };
  return { context, close };
}

/** A page in a fresh browser at `viewport` (added to `opened`, for closing), with the page's
 * uncaught errors gathered in `errors`. */
export async function openPage(viewport, opened) {
  const browser = await launch();
  opened.push(browser);
  const page = await browser.context.newPage();
  await page.setViewportSize(viewport);
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  page.setDefaultTimeout(15000);
  return { page, errors };
}
