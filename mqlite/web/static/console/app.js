// The console's shell: sign in, the queue manager chosen, the navigation, and the routes.
import * as api from "./api.js";
import {$, el, notice} from "./ui.js";
import {route, dispatch, go, current} from "./router.js";
import {GROUPS, listView, objectView, createView} from "./objects.js";
import {messagesView} from "./messages.js";
import {channelActions, startStop, queueActions, connectionsView, statusView} from "./ops.js";
import {securityView} from "./security.js";
import {mqscView} from "./mqscbox.js";
import {homeView, dashboardView, clusterView, stop} from "./dash.js";

const ACTIONS = {channels: channelActions, listeners: (qm) => startStop(qm, "LISTENER", "LISTENER"),
                 services: (qm) => startStop(qm, "SERVICE", "SERVICE"), queues: queueActions};
const NAV = [["dashboard", "Dashboard"], ...Object.entries(GROUPS).map(([k, g]) => [k, g.title]),
             ["connections", "Connections"], ["status", "Queue manager"], ["security", "Security"], ["mqsc", "MQSC"]];
let qmgrNames = [];

function chosenQm() {
  const m = current().match(/^#\/qm\/([^/?]+)/);
  return m ? decodeURIComponent(m[1]) : localStorage.getItem("qmgr") || qmgrNames[0] || "";
}

function drawNav() {
  const qm = chosenQm();
  if (qm) localStorage.setItem("qmgr", qm);
  const select = $("#qmgr-select");
  select.replaceChildren(...qmgrNames.map((n) => el("option", {value: n}, n)));
  select.value = qm;
  const here = current().split("?")[0];
  $("#nav").replaceChildren(el("a", {href: "#/", "aria-current": here === "#/" ? "page" : null}, "All queue managers"),
    el("a", {href: "#/cluster", "aria-current": here === "#/cluster" ? "page" : null}, "Cluster view"),
    ...(qm ? NAV.map(([k, label]) => {
      const href = `#/qm/${encodeURIComponent(qm)}/${k}`;
      return el("a", {href, "data-nav": k, "aria-current": here.startsWith(href) ? "page" : null}, label);
    }) : []));
}

async function start(user) {
  $("#login").hidden = true; $("#app").hidden = false;
  $("#who").textContent = `${user.name} (${user.role.join(", ")})`;
  // The queue managers' names (for the navigation) and the first page at once; the attribute table
  // (the forms') after them.
  const names = api.qmgrs().then((list) => { qmgrNames = list.map((q) => q.name).sort(); drawNav(); });
  route("/", homeView);
  route("/cluster", clusterView);
  route("/qm/:qm/dashboard", dashboardView);
  for (const group of Object.keys(GROUPS)) route(`/qm/:qm/${group}`, (view, qm) => listView(view, qm, group, ACTIONS[group] && ACTIONS[group](qm)));
  route("/qm/:qm/object/:type/:name", (view, qm, type, name) => objectView(view, qm, type, name));
  route("/qm/:qm/new/:type", (view, qm, type, params) => createView(view, qm, type, params.get("like")));
  route("/qm/:qm/messages/:queue", (view, qm, queue) => messagesView(view, qm, queue));
  route("/qm/:qm/connections", connectionsView);
  route("/qm/:qm/status", statusView);
  route("/qm/:qm/security", (view, qm, params) => securityView(view, qm, params));
  route("/qm/:qm/mqsc", mqscView);
  window.addEventListener("mq-routed", drawNav);
  await Promise.all([dispatch(), names]);
  api.schema().catch(() => null);
}

async function logIn(ev) {
  ev.preventDefault();
  try {
    await api.logIn($("#username").value, $("#password").value);
    start(await api.whoAmI());
  } catch (e) { $("#login-error").textContent = e.message; }
}

$("#login-form").addEventListener("submit", logIn);
$("#logout").addEventListener("click", async () => { stop(); try { await api.logOut(); } catch (e) { /* already out */ } location.reload(); });
$("#qmgr-select").addEventListener("change", (ev) => {
  const rest = current().match(/^#\/qm\/[^/]+\/([a-z]+)/);
  const view = rest && NAV.some(([k]) => k === rest[1]) ? rest[1] : "dashboard";
  go(`#/qm/${encodeURIComponent(ev.target.value)}/${view}`);
});
window.addEventListener("mq-logged-out", () => { if (!$("#app").hidden) { notice("Signed out: sign in again.", true); location.reload(); } });
window.addEventListener("error", (ev) => notice(`Console error: ${ev.message}`, true));
window.addEventListener("unhandledrejection", (ev) => notice(ev.reason && ev.reason.message ? ev.reason.message : String(ev.reason), true));
api.whoAmI().then((user) => { if (user) start(user); else { $("#login").hidden = false; $("#username").focus(); } });
