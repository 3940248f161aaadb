// A long game's moves arrive in pages (docs/web-api.md: `plies_page`). The page keeps a
// game's `plies` as an array as long as the whole game, indexed by ply, holding only the
// pages it has: the newest page comes with every answer, earlier ones are fetched when the
// reader goes back to them. A normal game fits in one page, so its array has no holes.
export const Plies = (() => {
  const PAGE = 500;

  // Whether two plies are the same move to the same position.
  const same = (a, b) => !!a && !!b && a.fen === b.fen && !!a.move && !!b.move && a.move.landing === b.move.landing;

  // The game `g` as the server sent it, with `plies` spread over the whole game; the pages
  // `prev` (the same game as shown so far) holds before `g`'s page are kept when the two
  // agree on a ply they both have (a take-back beyond it would change that ply).
  function take(g, prev) {
    if (!g || typeof g !== "object") return g;
    if (g.game && typeof g.game === "object") { g.game = take(g.game, prev); return g; }
    const page = g.plies_page;
    if (!Array.isArray(g.plies) || !page || !Number.isInteger(page.from) || !Number.isInteger(page.total)
      || page.from < 0 || page.total < page.from + g.plies.length) return g;
    if (page.from === 0 && page.total === g.plies.length) return g;
    const all = new Array(page.total);
    g.plies.forEach((p, i) => { all[page.from + i] = p; });
    if (prev && prev.id === g.id && Array.isArray(prev.plies) && page.from > 0) {
      let k = page.from;
      const end = Math.min(page.from + g.plies.length, prev.plies.length);
      while (k < end && !(k in prev.plies)) k++;
      if (k < end && same(prev.plies[k], all[k])) {
        prev.plies.forEach((p, i) => { if (i < page.from) all[i] = p; });
      }
    }
    g.plies = all;
    return g;
  }

  // Whether ply index `i` of `g` is here.
  function has(g, i) { return i in g.plies; }

  // The first ply index `g` lacks, going back from `i`, or -1.
  function lastMissingBefore(g, i) {
    for (let k = Math.min(i, g.plies.length) - 1; k >= 0; k--) if (!(k in g.plies)) return k;
    return -1;
  }

  // Fetches the page that ends with ply index `i` (or starts at 0) into `g`, through `get`
  // (path -> the game's answer, already through `take`, so indexed by ply). Returns whether
  // it took it: an answer about a game that changed meanwhile is left to the follower.
  async function load(g, i, get) {
    const from = Math.max(0, i - PAGE + 1);
    const a = await get(`/api/games/${g.id}?from=${from}&limit=${PAGE}`);
    if (!a || a.id !== g.id || a.version !== g.version || !a.plies_page || a.plies_page.total !== g.plies.length
      || a.plies_page.from !== from || !Array.isArray(a.plies)) return false;
    a.plies.forEach((p, k) => { if (k >= from) g.plies[k] = p; });
    return true;
  }

  return { PAGE, take, has, lastMissingBefore, load };
})();
