// The account box's security: two-factor authentication (set up with a QR code, the recovery
// codes shown once, turned off), and the open sessions and API tokens, each with a Revoke
// button (GET /api/account/sessions, DELETE /api/account/sessions/{id}).
import { $ } from "../util.js";
import { api } from "../api.js";
import { t } from "../i18n.js";
import { act, toast } from "./common.js";

/** Called when the current session was revoked here: the page is logged out. */
let onLoggedOut = () => {};

/** Draws the box for `me` (null or a guest: hidden). @param {any} me */
export function renderSecurity(me) {
  const box = $("security-box");
  box.hidden = !me || me.guest;
  if (box.hidden) return;
  const on = !!me.twoFactor;
  $("tf-state").textContent = t(on ? "onTwoFactorOn" : "onTwoFactorOff");
  $("tf-setup-form").hidden = on;
  $("tf-disable-form").hidden = !on;
  if (box.open) loadSessions();
}

/** Lists the sessions and tokens, each with a Revoke button. */
async function loadSessions() {
  let data;
  try { data = await api("GET", "/api/account/sessions"); } catch (_) { return; }
  const ul = $("sessions-list");
  ul.innerHTML = "";
  for (const s of data.sessions) {
    const li = document.createElement("li");
    li.dataset.testid = "session-" + s.id;
    const kind = s.kind === "token" ? t("onTokenWord") : t("onSessionWord");
    let text = `${kind} ${s.id} · ${new Date(s.createdAt).toLocaleString()}`;
    if (s.current) text += " · " + t("onThisOne");
    if (s.kind === "token") {
      if (s.description) text += " · " + s.description;
      text += " · " + (s.scopes || []).join(", ");
    }
    const span = document.createElement("span");
    span.textContent = text;
    const b = document.createElement("button");
    b.type = "button";
    b.className = "danger";
    b.textContent = t("onRevoke");
    b.dataset.testid = "revoke-" + s.id;
    b.addEventListener("click", async () => {
      const r = await act(b, () => api("DELETE", "/api/account/sessions/" + s.id));
      if (!r) return;
      if (s.current) { onLoggedOut(); return; }
      li.remove();
    });
    li.append(span, " ", b);
    ul.appendChild(li);
  }
}

/** Wires the forms; `me()` is who is signed in, `changed(me)` redraws the account box,
 * `loggedOut()` is called when this session is revoked. */
export function wireSecurity(/** @type {() => any} */ me, /** @type {(m: any) => void} */ changed, /** @type {() => void} */ loggedOut) {
  onLoggedOut = loggedOut;
  $("security-box").addEventListener("toggle", () => { if ($("security-box").open) loadSessions(); });
  $("tf-setup-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const password = $("tf-password").value;
    if (!password) return;
    const r = await act($("btn-tf-setup"), () => api("POST", "/api/account/two-factor/setup", { password }));
    if (!r) return;
    $("tf-password").value = "";
    $("tf-qr").src = "data:image/svg+xml;charset=utf-8," + encodeURIComponent(r.qr);
    $("tf-secret").textContent = r.secret;
    $("tf-enable-form").hidden = false;
  });
  $("tf-enable-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const code = $("tf-code").value.trim();
    if (!code) return;
    const r = await act($("btn-tf-enable"), () => api("POST", "/api/account/two-factor/enable", { code }));
    if (!r) return;
    $("tf-code").value = "";
    $("tf-enable-form").hidden = true;
    $("tf-codes").textContent = r.recoveryCodes.join("\n");
    $("tf-codes-box").hidden = false;
    changed({ ...me(), twoFactor: true });
  });
  $("btn-tf-codes-done").addEventListener("click", () => {
    $("tf-codes").textContent = "";
    $("tf-codes-box").hidden = true;
  });
  $("tf-disable-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const password = $("tf-off-password").value;
    const code = $("tf-off-code").value.trim();
    if (!password || !code) return;
    const r = await act($("btn-tf-disable"), () => api("POST", "/api/account/two-factor/disable", { password, code }));
    if (!r) return;
    $("tf-off-password").value = "";
    $("tf-off-code").value = "";
    toast(t("onTwoFactorOff"));
    changed({ ...me(), twoFactor: false });
  });
}
