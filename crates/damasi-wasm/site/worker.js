// The engine in a Web Worker: each message is a list of Hub lines; every output line is posted
// back as it comes, the same lines `damasi hub` writes. A search runs to its limit (`level`).
import init, { Hub } from "./damasi_wasm.js";

let hub = null;
const ready = init().then(() => { hub = new Hub(); });

onmessage = async (event) => {
  await ready;
  for (const line of event.data) {
    const out = hub.line(line);
    if (out) for (const l of out.split("\n")) postMessage(l);
  }
};
