// The link a server open to the network prints, `/#token=T`: the token sits in the address's
// fragment, which browsers never send, so it lands in no proxy's log. The page hands it to the
// server once, in a header, and gets back the cookie it sends by itself from then on; the
// token leaves the address bar at once.

/** Trades a `#token=` of the address for the server's cookie (nothing without one). */
export async function adoptServerToken() {
  const m = /^#token=([^&]*)/.exec(location.hash);
  if (!m) return;
  history.replaceState(null, "", location.pathname + location.search);
  try {
    const r = await fetch("/api/server-token", {
      method: "POST",
      headers: { Authorization: "Bearer " + decodeURIComponent(m[1]) },
    });
    if (!r.ok) console.warn("the server refused the access token of the link:", r.status);
  } catch (e) {
    console.warn("cannot hand the access token to the server:", e);
  }
}
