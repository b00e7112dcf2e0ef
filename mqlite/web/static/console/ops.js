// Operations: channel start, stop (quiesce or force), ping, reset, resolve and status instances;
// listener and service start and stop; connections (DISPLAY CONN, STOP CONN); the queue
// manager's status. Each is the MQSC MQ has for it, shown before it runs, answered as runmqsc answers.
import * as api from "./api.js";
import {el, button, output, table, dialog, confirmRun, notice, errorText} from "./ui.js";

const SENDING = ["SDR", "SVR", "CLUSSDR"];

// The MQSC a dialog will run, kept up to date as its fields change.
function preview(root, text) {
  const pre = el("pre", {class: "mqsc-preview", id: "dialog-mqsc"});
  const update = () => { pre.textContent = text(); };
  root.addEventListener("input", update); root.addEventListener("change", update); update();
  return pre;
}
const RECEIVING = ["RCVR", "RQSTR", "CLUSRCVR"];

export async function run(qm, text, ask) {
  if (ask && !(await confirmRun(ask, text))) return null;
  try {
    const r = await api.mqsc(qm, text);
    notice(r.lines.join(" ") || "Done", !r.ok);
    return r;
  } catch (e) { notice(errorText(e), true); return null; }
}

export function channelActions(qm) {
  return (r, type, refresh) => {
    const name = api.named(r.CHANNEL);
    const out = [button("Start", async () => { await run(qm, `START CHANNEL(${name})`); refresh(); },
                        {"data-action": "start", title: `START CHANNEL(${name})`}),
      button("Stop", async () => { await stopChannel(qm, r.CHANNEL); refresh(); }, {"data-action": "stop"})];
    if (SENDING.includes(type) || type === "RQSTR") {
      out.push(button("Ping", () => run(qm, `PING CHANNEL(${name})`), {"data-action": "ping", title: `PING CHANNEL(${name})`}));
    }
    if (SENDING.includes(type) || RECEIVING.includes(type)) {
      out.push(button("Reset", async () => {
        const seq = el("input", {type: "number", min: 1, max: 999999999, value: 1, id: "reset-seq"});
        const body = el("div", {class: "field"}, el("label", {for: "reset-seq"}, "Message sequence number"), seq);
        body.append(preview(body, () => `RESET CHANNEL(${name}) SEQNUM(${Number(seq.value)})`));
        const n = await dialog(`Reset ${r.CHANNEL}`, body, [["Cancel", null], ["Reset", () => seq.value, "primary"]]);
        if (n) { await run(qm, `RESET CHANNEL(${name}) SEQNUM(${Number(n)})`); refresh(); }
      }, {"data-action": "reset"}));
    }
    if (SENDING.includes(type)) {
      out.push(button("Resolve", async () => {
        const how = await dialog(`Resolve ${r.CHANNEL}`, el("div", {}, el("p", {}, "Commit or back out the in-doubt batch?"),
          el("pre", {class: "mqsc-preview", id: "dialog-mqsc"}, `RESOLVE CHANNEL(${name}) ACTION(BACKOUT | COMMIT)`)),
                                 [["Cancel", null], ["Back out", "BACKOUT"], ["Commit", "COMMIT", "primary"]]);
        if (how) { await run(qm, `RESOLVE CHANNEL(${name}) ACTION(${how})`); refresh(); }
      }, {"data-action": "resolve"}));
    }
    out.push(button("Status", () => channelStatus(qm, r.CHANNEL), {"data-action": "status"}));
    return out;
  };
}

async function stopChannel(qm, channel) {
  const mode = el("select", {id: "stop-mode"}, ...["QUIESCE", "FORCE", "TERMINATE"].map((m) => el("option", {value: m}, m)));
  const status = el("select", {id: "stop-status"}, el("option", {value: "STOPPED"}, "STOPPED"), el("option", {value: "INACTIVE"}, "INACTIVE"));
  const body = el("div", {}, el("div", {class: "field"}, el("label", {for: "stop-mode"}, "Mode"), mode),
    el("div", {class: "field"}, el("label", {for: "stop-status"}, "Leave it"), status));
  body.append(preview(body, () => `STOP CHANNEL(${api.named(channel)}) MODE(${mode.value}) STATUS(${status.value})`));
  const choice = await dialog(`Stop ${channel}`, body, [["Cancel", null], ["Stop", () => ({mode: mode.value, status: status.value}), "primary"]]);
  if (!choice) return;
  await run(qm, `STOP CHANNEL(${api.named(channel)}) MODE(${choice.mode}) STATUS(${choice.status})`);
}

async function channelStatus(qm, channel) {
  const rows = await api.objects(qm, "chstatus", channel);
  const keys = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  const body = rows.length ? el("table", {class: "objects", id: "channel-status"},
    el("thead", {}, el("tr", {}, ...keys.map((k) => el("th", {scope: "col"}, k)))),
    el("tbody", {}, ...rows.map((r) => el("tr", {}, ...keys.map((k) => el("td", {}, String(r[k] ?? "")))))))
    : output(["AMQ8420I: Channel Status not found."]);
  await dialog(`Status of ${channel} (${rows.length} instance${rows.length === 1 ? "" : "s"})`, body, [["Close", null]]);
}

export function startStop(qm, qualifier, key) {
  return (r, type, refresh) => [
    button("Start", async () => { await run(qm, `START ${qualifier}(${api.named(r[key])})`); setTimeout(refresh, 300); },
           {"data-action": "start", title: `START ${qualifier}(${api.named(r[key])})`}),
    button("Stop", async () => { await run(qm, `STOP ${qualifier}(${api.named(r[key])})`); setTimeout(refresh, 300); },
           {"data-action": "stop", title: `STOP ${qualifier}(${api.named(r[key])})`})];
}

export function queueActions(qm) {
  return (r, type) => type === "QLOCAL" || type === "QALIAS" || type === "QREMOTE"
    ? [button("Messages", () => { location.hash = `#/qm/${qm}/messages/${encodeURIComponent(r.QUEUE)}`; }, {"data-action": "messages"})]
    : [];
}

export async function connectionsView(view, qm) {
  const rows = await api.objects(qm, "conn", "*");
  const all = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  const t = table({id: "connections", rows, columns: ["CONN", "APPLTAG", "APPLTYPE", "CHANNEL", "CONNAME", "USERID", "PID"],
    all, key: "CONN", storage: "conn",
    actions: (r) => r.APPLTYPE === "SYSTEM" ? [] : [button("Stop", async () => {
      const done = await run(qm, `STOP CONN(${r.CONN})`, `Stop connection ${r.CONN} (${r.APPLTAG})?`);
      if (done) connectionsView(view, qm);
    }, {class: "danger", "data-action": "stop"})]});
  view.replaceChildren(el("h1", {}, `Connections to ${qm}`), el("div", {class: "toolbar"}, button("Refresh", () => connectionsView(view, qm))), t);
}

export async function statusView(view, qm) {
  const [status] = await api.objects(qm, "qmstatus");
  const [qmgr] = await api.objects(qm, "qmgr");
  const rows = Object.entries(status || {}).map(([k, v]) => el("tr", {}, el("th", {scope: "row"}, k), el("td", {"data-field": k}, String(v))));
  view.replaceChildren(el("h1", {}, `Queue manager ${qm}`),
    el("div", {class: "toolbar"}, button("Properties (ALTER QMGR)", () => { location.hash = `#/qm/${qm}/object/QMGR/${qm}`; }, {class: "primary"})),
    el("div", {class: "cards"},
      el("div", {class: "card"}, el("h2", {}, "Status"), el("table", {id: "qmstatus"}, ...rows)),
      el("div", {class: "card"}, el("h2", {}, "At a glance"), el("table", {}, ...["DESCR", "CMDLEVEL", "PLATFORM", "DEADQ", "CHLAUTH", "CONNAUTH", "REPOS"]
        .filter((k) => qmgr && k in qmgr).map((k) => el("tr", {}, el("th", {scope: "row"}, k), el("td", {}, String(qmgr[k]))))))));
}
