// Speed of the wasm build against native: start-position perft and the engine's fixed bench,
// in Node and in headless Chromium (Debian's /usr/bin/chromium driven by playwright-core from
// crates/damasi-web/e2e), and natively (examples/native_speed.rs). Prints a Markdown table.
//
//   scripts/build-wasm && (cd crates/damasi-web/e2e && npm ci) &&
//   node crates/damasi-wasm/bench/run.mjs [PERFT_DEPTH] [BENCH_DEPTH]
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const pkg = join(root, "target/wasm-pkg");
const perftDepth = Number(process.argv[2] ?? 8);
const benchDepth = Number(process.argv[3] ?? 8);

function measure(wasm) {
  let t = performance.now();
  const leaves = wasm.perft("startpos", perftDepth);
  const perftSecs = (performance.now() - t) / 1000;
  const [benchNodes, benchSecs] = wasm.bench(benchDepth);
  return { leaves, perftSecs, benchNodes, benchSecs };
}

// Native.
const native = JSON.parse(
  execFileSync(
    "cargo",
    ["run", "--quiet", "--release", "-p", "damasi-wasm", "--example", "native_speed", "--",
      String(perftDepth), String(benchDepth)],
    { cwd: root, encoding: "utf8" },
  ),
);
const results = [["native (x86-64)", {
  leaves: native.leaves, perftSecs: native.perft_secs,
  benchNodes: native.bench_nodes, benchSecs: native.bench_secs,
}]];

// Node.
const glue = await import(pathToFileURL(join(pkg, "damasi_wasm.js")));
await glue.default({ module_or_path: readFileSync(join(pkg, "damasi_wasm_bg.wasm")) });
results.push([`Node ${process.version}`, measure(glue)]);

// Chromium.
const require = createRequire(join(root, "crates/damasi-web/e2e/package.json"));
const { chromium } = require("playwright-core");
const server = createServer((req, res) => {
  const name = req.url === "/" ? "index.html" : req.url.slice(1);
  if (name === "index.html") {
    res.writeHead(200, { "content-type": "text/html" });
    res.end("<!doctype html><title>bench</title>");
    return;
  }
  try {
    const body = readFileSync(join(pkg, name.replace(/\.\./g, "")));
    res.writeHead(200, {
      "content-type": name.endsWith(".wasm") ? "application/wasm" : "text/javascript",
    });
    res.end(body);
  } catch {
    res.writeHead(404);
    res.end();
  }
});
await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
const url = `http://127.0.0.1:${server.address().port}/`;
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
  args: ["--no-sandbox"],
});
try {
  const page = await browser.newPage();
  await page.goto(url);
  const version = browser.version();
  const r = await page.evaluate(async ([perftDepth, benchDepth]) => {
    const glue = await import("/damasi_wasm.js");
    await glue.default();
    let t = performance.now();
    const leaves = glue.perft("startpos", perftDepth);
    const perftSecs = (performance.now() - t) / 1000;
    const [benchNodes, benchSecs] = glue.bench(benchDepth);
    return { leaves, perftSecs, benchNodes, benchSecs };
  }, [perftDepth, benchDepth]);
  results.push([`Chromium ${version} (headless)`, r]);
} finally {
  await browser.close();
  server.close();
}

const base = results[0][1];
const m = (n, s) => (n / s / 1e6).toFixed(1);
console.log(`| where | perft(${perftDepth}) M leaves/s | vs native | bench (depth ${benchDepth}) M nodes/s | vs native |`);
console.log("|---|---|---|---|---|");
for (const [where, r] of results) {
  if (r.leaves !== base.leaves || r.benchNodes !== base.benchNodes) {
    throw new Error(`${where}: counts differ from native (${r.leaves}, ${r.benchNodes})`);
  }
  const p = r.leaves / r.perftSecs, b = r.benchNodes / r.benchSecs;
  console.log(`| ${where} | ${m(r.leaves, r.perftSecs)} | ${(p / (base.leaves / base.perftSecs)).toFixed(2)} | ${m(r.benchNodes, r.benchSecs)} | ${(b / (base.benchNodes / base.benchSecs)).toFixed(2)} |`);
}
console.log(`(perft leaves ${base.leaves}, bench nodes ${base.benchNodes}: identical everywhere)`);
