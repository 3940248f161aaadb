// Reports and moderation on the page: the report form (a player's profile and a game), the
// moderators' queue at /mod with their actions and the log, and on the account panel what was
// done to the account. The server decides who may do what (docs/online.md, "Reports and
// moderation").
import { $ } from "../util.js";
import { api, showError } from "../api.js";
import { t } from "../i18n.js";
import { act, toast } from "./common.js";

/** The report being written: who, and about which game. */
const asked = { name: "", game: /** @type {string|null} */ (null) };

/** Opens the report form about `name` (and `game`, if given). @param {string} name @param {string|null} game */
export function openReport(name, game) {
  asked.name = name;
  asked.game = game;
  $("report-who").textContent = name;
  $("report-note").value = "";
  $("report-reason").value = game ? "insults" : "cheating";
  $("report-dialog").showModal();
}

export function wireReports() {
  $("report-form").addEventListener("submit", async (/** @type {Event} */ e) => {
    e.preventDefault();
    const body = { username: asked.name, reason: $("report-reason").value, note: $("report-note").value, gameId: asked.game };
    const r = await act($("btn-report-send"), () => api("POST", "/api/report", body));
    if (!r) return;
    $("report-dialog").close();
    toast(t("onReportSent"));
  });
  $("btn-report-cancel").addEventListener("click", () => $("report-dialog").close());
}

/** The moderators' view at /mod: the open reports and the log. */
export async function startMod() {
  $("mod-view").hidden = false;
  await loadQueue();
}

async function loadQueue() {
  let queue, log;
  try {
    [queue, log] = await Promise.all([api("GET", "/api/mod/reports"), api("GET", "/api/mod/log")]);
  } catch (e) { showError(e); return; }
  const list = $("mod-reports");
  list.innerHTML = "";
  $("mod-empty").hidden = queue.reports.length > 0;
  for (const r of queue.reports) list.appendChild(reportItem(r));
  const rows = $("mod-log");
  rows.innerHTML = "";
  for (const l of log.log) {
    const li = document.createElement("li");
    li.textContent = `${new Date(l.at).toLocaleString()} · ${l.moderator} · ${l.name || "?"} · ${l.action}${l.details ? " — " + l.details : ""}`;
    rows.appendChild(li);
  }
}

/** One report with its evidence and the actions on the reported player. @param {any} r */
function reportItem(r) {
  const li = document.createElement("li");
  li.className = "report";
  li.dataset.testid = "mod-report";
  const head = document.createElement("p");
  const who = document.createElement("a");
  who.href = "/@/" + encodeURIComponent(r.reported);
  who.textContent = r.reported;
  const by = r.reporter === null ? t("onReportedByScreen") : t("onReportedBy", { name: r.reporter });
  head.append(who, ` · ${t("onReason:" + r.reason)} · ${by}`);
  if (r.marks.length) head.append(` · [${r.marks.join(", ")}]`);
  li.appendChild(head);
  if (r.note) { const p = document.createElement("p"); p.className = "note"; p.textContent = r.note; li.appendChild(p); }
  if (r.game) {
    const a = document.createElement("a");
    a.href = "/online/" + r.game;
    a.textContent = t("onReportGame", { id: r.game });
    li.appendChild(a);
  }
  for (const line of (r.evidence && r.evidence.chat) || []) {
    const p = document.createElement("p");
    p.className = "chatline";
    p.textContent = `${line.user}: ${line.text}`;
    li.appendChild(p);
  }
  // The fair-play screen's evidence: each game it counted, with the figures of the side.
  for (const g of (r.evidence && r.evidence.screen && r.evidence.screen.perGame) || []) {
    const a = document.createElement("a");
    a.className = "screen-game";
    a.href = "/online/" + g.game;
    a.textContent = t("onScreenGame", {
      game: g.game, color: g.color, agreed: g.agreed, moves: g.moves, loss: (g.lossCm / 100).toFixed(2),
    });
    const p = document.createElement("p");
    p.appendChild(a);
    li.appendChild(p);
  }
  const row = document.createElement("div");
  row.className = "btnrow";
  const button = (/** @type {string} */ action, /** @type {() => any} */ body) => {
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = t("onModDo:" + action);
    b.dataset.testid = "mod-" + action;
    b.addEventListener("click", async () => {
      const payload = body();
      if (payload === null) return;
      const done = await act(b, () => api("POST", `/api/mod/${encodeURIComponent(r.reported)}/${action}`, payload));
      if (done) { toast(t("onModDone")); await loadQueue(); }
    });
    row.appendChild(b);
  };
  button("warn", () => { const m = prompt(t("onWarnMessage")); return m ? { message: m } : null; });
  button("mute", () => ({ minutes: 60 }));
  button("engine", () => (confirm(t("onEngineConfirm", { name: r.reported })) ? {} : null));
  button("dismiss", () => ({}));
  li.appendChild(row);
  return li;
}
