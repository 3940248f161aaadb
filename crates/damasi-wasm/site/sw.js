// Service worker: keeps every file of the site in a cache when it is installed and answers
// from that cache first, so the page loads and plays with no network. The export writes the
// list of the page's files and a version made from their contents into the two lines below:
// a new export with other files is a new cache, which replaces the old one.
const VERSION = "dev";
const PAGE_FILES = [];
const CACHE = "damasi-offline-" + VERSION;
const FILES = [
  "./",
  "index.html",
  "worker.js",
  "engine.js",
  "damasi_wasm.js",
  "damasi_wasm_bg.wasm",
  "manifest.webmanifest",
  "icon.svg",
  ...PAGE_FILES,
];

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(CACHE).then((c) => c.addAll(FILES)).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches.keys()
      .then((keys) => Promise.all(keys.filter((k) => k !== CACHE).map((k) => caches.delete(k))))
      .then(() => self.clients.claim()),
  );
});

self.addEventListener("fetch", (event) => {
  if (event.request.method !== "GET") return;
  event.respondWith(
    caches.match(event.request, { ignoreSearch: true }).then((hit) => hit || fetch(event.request)),
  );
});
