// The person's event stream (GET /api/stream/event, NDJSON): the games that start and finish
// for them, whatever page or client started them. It first announces the games already going
// on; `events.ready` settles once that first burst is over.
import { sleep } from "../util.js";
import { session } from "./account.js";

export const events = {
  /** @type {AbortController|null} the stream being read */
  ctl: null,
  /** settles once the stream has announced the games already going on */
  ready: Promise.resolve(),
  burstDone: false,
  /** What the view does with each event. @type {(ev: any) => void} */
  onEvent: (_ev) => {},
  /** What every page does besides (the header's challenges). @type {((ev: any) => void)[]} */
  listeners: [],
};

// Opens the stream (when someone is signed in and it is not open yet); it is opened again
// after a failure until stopped.
export function startEvents() {
  if (!session.me || events.ctl) return;
  const ctl = new AbortController();
  events.ctl = ctl;
  // The stream first announces the games already going on: a game that starts for a seek or
  // a pool is told apart from those by coming after them.
  /** @type {(value?: any) => void} */
  let settle;
  events.burstDone = false;
  events.ready = new Promise((r) => { settle = r; }).then(() => {
    events.burstDone = true;
    document.body.dataset.events = "ready";
  });
  setTimeout(() => settle(), 3000);
  (async () => {
    while (!ctl.signal.aborted) {
      try {
        const res = await fetch("/api/stream/event", { signal: ctl.signal });
        if (res.status === 401) break;
        setTimeout(() => settle(), 300);
        const reader = res.body.getReader();
        const dec = new TextDecoder();
        let buf = "";
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buf += dec.decode(value, { stream: true });
          let i;
          while ((i = buf.indexOf("\n")) >= 0) {
            const line = buf.slice(0, i).trim();
            buf = buf.slice(i + 1);
            if (!line) continue;
            let ev;
            try { ev = JSON.parse(line); } catch (_) { continue; }   // not JSON
            for (const f of [events.onEvent, ...events.listeners]) {
              try { f(ev); } catch (e) { console.warn(e); }
            }
          }
        }
      } catch (_) {
        if (ctl.signal.aborted) return;
      }
      await sleep(2000);
    }
    if (events.ctl === ctl) events.ctl = null;
  })();
}

export function stopEvents() {
  if (events.ctl) events.ctl.abort();
  events.ctl = null;
}
