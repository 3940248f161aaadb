// The two ways a request to the API fails, apart from api.js so that local.js (which answers
// the same API in the page) can refuse in the server's shape without importing api.js.

// A refusal or fault the server answered with: its status, machine code and the values its
// message names (see docs/web-api.md). The English message is kept only as a last resort.
export class ApiError extends Error {
  constructor(status, body) {
    body = body && typeof body === "object" ? body : {};
    super(typeof body.error === "string" ? body.error : "HTTP " + status);
    this.status = status;
    this.code = typeof body.code === "string" ? body.code : status >= 500 ? "internal" : "";
    this.params = body.params && typeof body.params === "object" ? body.params : {};
    this.legal = Array.isArray(body.legal) ? body.legal : null;
    /** @type {string|undefined} what the person typed, for an illegal move's message */
    this.typed = undefined;
    /** @type {"fen"|"pdn"|undefined} what the refused request carried: the page words a
     * `bad-request` about it in the reader's language (the server's detail is English) */
    this.about = undefined;
  }
}

// No answer at all: the server is down or restarting, or the network is gone.
export class NetworkError extends Error {}
