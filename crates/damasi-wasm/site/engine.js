// The engine in the browser, and a way to stop it: a Web Worker (worker.js) runs the
// WebAssembly engine and speaks Hub lines. A search in WebAssembly cannot be interrupted from
// inside its own thread (the worker reads no message until it returns), so `stop()` ends the
// worker and starts a fresh one at once; the engine keeps nothing between searches that a new
// worker would miss (each search sends its position and level).
export class BrowserEngine {
  constructor(workerUrl = new URL("worker.js", import.meta.url)) {
    this.url = workerUrl;
    this.pending = null;
    this.spawn();
  }

  spawn() {
    this.worker = new Worker(this.url, { type: "module" });
    this.worker.onmessage = (event) => this.onLine(String(event.data));
    this.worker.postMessage(["hub", "init"]);
  }

  onLine(line) {
    const p = this.pending;
    if (line.startsWith("error")) console.warn("engine:", line);
    if (!p) return;
    if (line.startsWith("info")) {
      p.info = line;
      if (p.onInfo) p.onInfo(line);
    } else if (line.startsWith("done")) {
      this.pending = null;
      const m = /move=(\S+)/.exec(line);
      p.resolve({ move: m ? m[1] : null, info: p.info, stopped: false });
    }
  }

  // Whether a search is under way.
  get busy() { return this.pending !== null; }

  // Sends Hub `lines` (ending with a `go` line); resolves with `{move, info, stopped}` when
  // the search ends (`move` in Hub notation, `info` the last info line), or with
  // `{move: null, stopped: true}` when it is stopped. A search under way is stopped first.
  search(lines, onInfo) {
    this.stop();
    return new Promise((resolve) => {
      this.pending = { resolve, info: null, onInfo };
      this.worker.postMessage(lines);
    });
  }

  // Stops the search under way, if any (ends the worker, starts another); returns whether
  // there was one.
  stop() {
    const p = this.pending;
    if (!p) return false;
    this.pending = null;
    this.worker.terminate();
    this.spawn();
    p.resolve({ move: null, info: p.info, stopped: true });
    return true;
  }
}

// The fields of a Hub `info` line: depth, score (hundredths of a man for the side to move;
// a forced win reads as about +-90 men), pv (Hub moves).
export function parseInfo(line) {
  const out = { depth: 0, score: 0, pv: [] };
  if (!line) return out;
  const depth = /\bdepth=(\d+)/.exec(line);
  if (depth) out.depth = Number(depth[1]);
  const score = /\bscore=(-?[\d.]+)/.exec(line);
  if (score) out.score = Math.round(Number(score[1]) * 100);
  const pv = /\bpv="([^"]*)"/.exec(line) || /\bpv=(\S+)/.exec(line);
  if (pv) out.pv = pv[1].split(/\s+/).filter(Boolean);
  return out;
}
