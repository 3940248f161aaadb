// Every outcome code and error code of the API contract (docs/web-api.md) has a text in
// English and in Turkish, so the page never shows a server sentence for want of one.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";
import vm from "node:vm";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..", "..", "..", "..");
const contract = readFileSync(join(root, "docs", "web-api.md"), "utf8");

function texts() {
  const sandbox = { window: {} };
  vm.runInNewContext(readFileSync(join(here, "..", "..", "assets", "i18n.js"), "utf8"), sandbox);
  return sandbox.window.I18N;
}

// The backquoted codes of a paragraph of the contract that starts with `label`.
function codesAfter(label) {
  const at = contract.indexOf(label);
  assert.ok(at >= 0, `the contract says "${label}"`);
  const sentence = contract.slice(at, contract.indexOf(".", contract.indexOf("`", at + label.length)));
  return [...sentence.matchAll(/`([a-z-]+)`/g)].map((m) => m[1]);
}

test("every outcome code of the contract has an English and a Turkish text", () => {
  const I18N = texts();
  const wins = codesAfter("Win reasons:");
  const draws = codesAfter("Draw reasons:");
  assert.ok(wins.includes("resignation") && draws.includes("agreement"), `${wins} / ${draws}`);
  const keys = [...wins.map((r) => "win:" + r), ...draws.map((r) => "draw:" + r), "out:aborted"];
  for (const lang of ["en", "tr"]) {
    for (const k of keys) assert.ok(I18N[lang][k], `${lang} lacks ${k}`);
  }
});

test("every error code of the contract has an English and a Turkish text", () => {
  const I18N = texts();
  const codes = [...contract.matchAll(/^\| \d{3} \| `([a-z-]+)` \|/gm)].map((m) => m[1]);
  assert.ok(codes.length >= 10, codes.join(" "));
  // The page words this one itself, with the moves the server lists.
  const own = new Set(["illegal-move"]);
  for (const lang of ["en", "tr"]) {
    for (const c of codes) {
      if (own.has(c)) continue;
      assert.ok(I18N[lang]["err:" + c], `${lang} lacks err:${c}`);
    }
    assert.ok(I18N[lang].illegalMove && I18N[lang].legalAre);
  }
});

test("the Turkish texts use the federation's words", () => {
  const tr = texts().tr;
  assert.match(tr["win:resignation"], /terk/);
  assert.match(tr["win:time"], /süre/);
  assert.match(tr["draw:agreement"], /[Bb]erabere/);
  assert.match(tr["win:king-beats-lone-man"], /dama/);
  assert.equal(tr.white, "Beyaz");
  assert.equal(tr.black, "Siyah");
});

test("every text the pages name has an English and a Turkish text", async () => {
  const I18N = texts();
  const { readdirSync } = await import("node:fs");
  const assets = join(here, "..", "..", "assets");
  const files = (dir) => readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)]));
  const keys = new Set();
  // The pages and their modules (not the dictionaries themselves, assets/i18n.js).
  const sources = files(assets).filter((f) => /\.(html|js)$/.test(f) && f !== join(assets, "i18n.js"));
  for (const file of sources) {
    const src = readFileSync(file, "utf8");
    // Marked in the markup (the pages, and the settings dialog settings.js makes) ...
    for (const m of src.matchAll(/data-i18n(?:-label|-placeholder|-title)?="([^"]+)"/g)) keys.add(m[1]);
    // ... and asked for in the code: t("key"), and the online pages' own keys wherever named.
    for (const m of src.matchAll(/\bt\("([A-Za-z][\w:-]*)"(?!\s*\+)/g)) keys.add(m[1]);
    if (file.includes(join("js", "online"))) for (const m of src.matchAll(/"(on[A-Z]\w*)"/g)) keys.add(m[1]);
  }
  assert.ok(keys.has("onTakeSeat") && keys.has("setTheme") && keys.has("tablebase"), [...keys].join(" "));
  for (const lang of ["en", "tr"]) {
    const missing = [...keys].filter((k) => !I18N[lang][k]);
    assert.deepEqual(missing, [], `${lang} lacks these texts`);
  }
});
