// Dashboards: a queue manager's depth over time (the console's snapshot stream, one a second),
// put and get rates (the queue statistics the queue manager writes, STATQ), channel status over
// time and the events it wrote (the SYSTEM.ADMIN.*.EVENT queues, browsed); and the cluster view.
import * as api from "./api.js";
import {el, svg, button, sparkline, table, notice} from "./ui.js";
import {run} from "./ops.js";

const HISTORY = 120;                     // snapshots kept (one a second)
const depths = new Map();                // "QM/QUEUE" -> [depth, ...]
const chStates = new Map();              // "QM/CHANNEL" -> [status, ...]
let snapshot = null, source = null;
const listeners = new Set();

export function follow() {
  if (source) return;
  source = new EventSource("/ibmmq/console/api/stream");
  source.onmessage = (ev) => {
    snapshot = JSON.parse(ev.data);
    for (const qm of snapshot.qmgrs) {
      for (const q of qm.queues || []) push(depths, qm.name + "/" + q.queue, q.curdepth);
      const status = new Map((qm.chstatus || []).map((c) => [c.channel, c.status]));
      for (const c of qm.channels || []) push(chStates, qm.name + "/" + c.channel, status.get(c.channel) || "INACTIVE");
    }
    for (const fn of listeners) fn(snapshot);
  };
}
export function stop() { if (source) source.close(); source = null; }
function push(map, key, v) { const h = map.get(key) || []; h.push(v); if (h.length > HISTORY) h.shift(); map.set(key, h); }
function onSnapshot(view, fn) {
  listeners.clear();
  const wrapped = (s) => { if (!document.body.contains(view.firstChild)) { listeners.delete(wrapped); return; } fn(s); };
  listeners.add(wrapped);
  if (snapshot) fn(snapshot);
}

export async function homeView(view) {
  follow();
  const body = el("div", {id: "qmgr-cards", class: "cards"});
  view.replaceChildren(el("h1", {}, "Queue managers"), body);
  onSnapshot(view, (s) => {
    body.replaceChildren(...s.qmgrs.map((qm) => {
      const running = (qm.chstatus || []).filter((c) => c.status === "RUNNING").length;
      const depth = (qm.queues || []).reduce((a, q) => a + (q.curdepth || 0), 0);
      return el("a", {class: "card qmgr " + qm.state, href: `#/qm/${encodeURIComponent(qm.name)}/dashboard`, "data-qmgr": qm.name},
        el("h2", {}, qm.name), el("p", {class: "state " + qm.state}, qm.state + (qm.error ? ` (${qm.error})` : "")),
        qm.state === "running" ? el("p", {}, `${(qm.queues || []).length} queues, ${depth} messages, ${running} channels running`) : "");
    }));
  });
}

function timeline(states) {
  const w = 240, h = 14, cell = w / HISTORY;
  const s = svg("svg", {class: "timeline", width: w, height: h, viewBox: `0 0 ${w} ${h}`, role: "img",
                        "aria-label": `status over the last ${states.length} seconds, now ${states[states.length - 1] || "unknown"}`});
  states.forEach((st, i) => s.append(svg("rect", {x: (HISTORY - states.length + i) * cell, y: 0, width: cell + 0.5, height: h, class: "st " + st})));
  return s;
}

export async function dashboardView(view, qm) {
  follow();
  const tiles = el("div", {class: "cards", id: "tiles"});
  const depthBox = el("div", {id: "depth-chart"});
  const chBox = el("div", {id: "channel-timeline"});
  const rates = el("div", {id: "rates"});
  const events = el("div", {id: "events"});
  view.replaceChildren(el("h1", {}, `Dashboard of ${qm}`),
    tiles,
    el("section", {class: "panel"}, el("h2", {}, "Queue depth over time"), depthBox),
    el("section", {class: "panel"}, el("h2", {}, "Put and get rates (queue statistics)"), rates),
    el("section", {class: "panel"}, el("h2", {}, "Channel status over time"), chBox),
    el("section", {class: "panel"}, el("h2", {}, "Events"), events));
  onSnapshot(view, (s) => {
    const me = s.qmgrs.find((q) => q.name === qm) || {};
    const running = (me.chstatus || []).filter((c) => c.status === "RUNNING").length;
    const depth = (me.queues || []).reduce((a, q) => a + (q.curdepth || 0), 0);
    tiles.replaceChildren(
      el("div", {class: "card tile"}, el("h2", {}, "State"), el("p", {class: "big " + (me.state || "")}, me.state || "unknown")),
      el("div", {class: "card tile"}, el("h2", {}, "Queues"), el("p", {class: "big", id: "tile-queues"}, String((me.queues || []).length))),
      el("div", {class: "card tile"}, el("h2", {}, "Messages"), el("p", {class: "big", id: "tile-depth"}, String(depth))),
      el("div", {class: "card tile"}, el("h2", {}, "Channels running"), el("p", {class: "big", id: "tile-channels"}, `${running} of ${(me.channels || []).length}`)));
    const queues = [...(me.queues || [])].sort((a, b) => b.curdepth - a.curdepth || a.queue.localeCompare(b.queue)).slice(0, 20);
    depthBox.replaceChildren(el("table", {class: "objects", id: "depths"},
      el("thead", {}, el("tr", {}, ...["Queue", "Depth", "Max", "Last two minutes"].map((h) => el("th", {scope: "col"}, h)))),
      el("tbody", {}, ...queues.map((q) => el("tr", {"data-queue": q.queue, "data-depth": String(q.curdepth)},
        el("td", {}, el("a", {href: `#/qm/${qm}/messages/${encodeURIComponent(q.queue)}`}, q.queue)),
        el("td", {}, String(q.curdepth)), el("td", {}, String(q.maxdepth)),
        el("td", {}, sparkline(depths.get(qm + "/" + q.queue) || [], 240, 28)))))));
    chBox.replaceChildren(el("table", {class: "objects", id: "channel-states"}, el("tbody", {}, ...(me.channels || []).map((c) => {
      const h = chStates.get(qm + "/" + c.channel) || [];
      return el("tr", {"data-channel": c.channel}, el("td", {}, c.channel), el("td", {}, c.chltype),
        el("td", {class: "status " + h[h.length - 1]}, h[h.length - 1] || ""), el("td", {}, timeline(h)));
    }))));
  });
  const loadActivity = async () => {
    const a = await api.activity(qm);
    if (!a.statistics.length) {
      rates.replaceChildren(el("p", {id: "no-statistics"}, "No queue statistics yet: the queue manager writes them when STATQ is ON, every STATINT seconds."),
        button("Turn on (ALTER QMGR STATQ(ON) STATINT(10))", async () => { await run(qm, "ALTER QMGR STATQ(ON) STATINT(10)"); }, {id: "statq-on"}));
    } else {
      const byQueue = new Map();
      for (const st of a.statistics) {
        if (st.queue.startsWith("SYSTEM.")) continue;            // (the applications' queues, as the lists show)
        const l = byQueue.get(st.queue) || []; l.push(st); byQueue.set(st.queue, l);
      }
      const seconds = (st) => Math.max(1, (Date.parse(st.end) - Date.parse(st.start)) / 1000 || 1);
      rates.replaceChildren(el("table", {class: "objects", id: "rate-table"},
        el("thead", {}, el("tr", {}, ...["Queue", "Puts/s (latest)", "Gets/s (latest)", "Puts per interval", "Gets per interval"].map((h) => el("th", {scope: "col"}, h)))),
        el("tbody", {}, ...[...byQueue.entries()].sort().map(([queue, l]) => {
          const last = l[l.length - 1];
          return el("tr", {"data-queue": queue}, el("td", {}, queue), el("td", {}, (last.puts / seconds(last)).toFixed(1)),
            el("td", {}, (last.gets / seconds(last)).toFixed(1)), el("td", {}, sparkline(l.map((x) => x.puts), 160, 24)),
            el("td", {}, sparkline(l.map((x) => x.gets), 160, 24)));
        }))));
    }
    const recent = a.events.slice(-100).reverse();
    events.replaceChildren(recent.length ? table({id: "event-list", rows: recent.map((e) => ({time: e.time, queue: e.queue.replace("SYSTEM.ADMIN.", ""),
      event: e.reasonName, about: Object.entries(e.about).map(([k, v]) => `${k.replace(/^MQ[A-Z]+_/, "")}=${v}`).join(" ")})),
      columns: ["time", "queue", "event", "about"], all: ["time", "queue", "event", "about"], key: "time"}) :
      el("p", {id: "no-events"}, "No events on the event queues (the queue manager writes them when its *EV attributes are ENABLED)."));
  };
  try { await loadActivity(); } catch (e) { notice(e.message, true); }
  const timer = setInterval(() => { if (!document.body.contains(tiles)) clearInterval(timer); else loadActivity().catch(() => {}); }, 10000);
}

// --- the cluster view -------------------------------------------------------------------------
function clusterModel(s) {
  const nodes = new Map(), edges = new Map(), flows = new Map(), instances = new Map();
  const node = (n) => { if (!nodes.has(n)) nodes.set(n, {repos: false, queues: new Set(), clusters: new Set()}); return nodes.get(n); };
  for (const qm of s.qmgrs) {
    if (!(qm.clusqmgrs || []).length && !(qm.qclusters || []).length) continue;
    node(qm.name);
    for (const c of qm.clusqmgrs || []) {
      const n = node(c.clusqmgr);
      if (c.qmtype === "REPOS") n.repos = true;
      if (c.cluster) n.clusters.add(c.cluster);
      if (c.clusqmgr !== qm.name) edges.set(qm.name + ">" + c.clusqmgr, c.status || "INACTIVE");
    }
    for (const q of qm.qclusters || []) {
      node(q.clusqmgr).queues.add(q.queue);
      const i = instances.get(q.queue) || new Set(); i.add(q.clusqmgr); instances.set(q.queue, i);
    }
    for (const [queue, choices] of Object.entries(qm.workload || {})) {
      const f = flows.get(queue) || new Map(); flows.set(queue, f);
      for (const [, target] of choices) { const k = qm.name + ">" + target; f.set(k, (f.get(k) || 0) + 1); }
    }
  }
  return {nodes, edges, flows, instances};
}

export async function clusterView(view) {
  follow();
  const select = el("select", {id: "flow-queue", "aria-label": "Cluster queue"});
  const pic = svg("svg", {id: "cluster-view", role: "img", "aria-label": "cluster view"});
  const side = el("div", {id: "cluster-tables"});
  view.replaceChildren(el("h1", {}, "Cluster view"),
    el("div", {class: "toolbar"}, el("label", {for: "flow-queue"}, "Workload for "), select),
    pic,
    el("p", {id: "cluster-legend"}, "Double ring: full repository. Lines: cluster-sender channels (green running, grey inactive, " +
      "red retrying or stopped). Orange: where the workload algorithm sent the last messages for the chosen queue."), side);
  select.addEventListener("change", () => snapshot && draw(snapshot));
  const draw = (s) => {
    const {nodes, edges, flows, instances} = clusterModel(s);
    const chosen = select.value;
    const queues = [...new Set([...instances.keys(), ...flows.keys()])].sort();
    if (select.options.length !== queues.length || [...select.options].some((o, i) => o.value !== queues[i])) {
      select.replaceChildren(...queues.map((q) => el("option", {value: q}, q)));
      if (queues.includes(chosen)) select.value = chosen;
    }
    drawCluster(pic, nodes, edges, flows.get(select.value) || new Map());
    const choices = flows.get(select.value) || new Map();
    side.replaceChildren(
      el("h2", {}, "Queue instances"),
      el("table", {class: "objects", id: "cluster-instances"}, el("tbody", {}, ...[...instances.entries()].sort().map(([q, where]) =>
        el("tr", {"data-queue": q}, el("th", {scope: "row"}, q), el("td", {}, [...where].sort().join(", ")))))),
      el("h2", {}, `Workload choices for ${select.value || "-"}`),
      el("table", {class: "objects", id: "workload-choices"}, el("tbody", {}, ...[...choices.entries()].map(([k, n]) => {
        const [a, b] = k.split(">"); return el("tr", {}, el("td", {}, a), el("td", {}, "→"), el("td", {}, b), el("td", {"data-count": String(n)}, String(n)));
      }))),
      el("h2", {}, "Cluster channels"),
      el("table", {class: "objects", id: "cluster-channels"}, el("tbody", {}, ...[...edges.entries()].sort().map(([k, st]) => {
        const [a, b] = k.split(">"); return el("tr", {}, el("td", {}, a), el("td", {}, "→"), el("td", {}, b), el("td", {class: "status " + st}, st));
      }))),
      el("h2", {}, "Repositories"),
      el("p", {id: "repositories"}, [...nodes.entries()].filter(([, n]) => n.repos).map(([name]) => name).sort().join(", ") || "none"));
  };
  onSnapshot(view, draw);
}

function drawCluster(view, nodes, edges, flow) {
  view.replaceChildren();
  const box = view.getBoundingClientRect(), W = box.width || 900, H = box.height || 460;
  const names = [...nodes.keys()].sort(), R = Math.min(W, H) / 2 - 70, pos = new Map();
  names.forEach((n, i) => {
    const a = (2 * Math.PI * i) / Math.max(1, names.length) - Math.PI / 2;
    pos.set(n, [W / 2 + R * Math.cos(a), H / 2 + R * Math.sin(a)]);
  });
  const defs = svg("defs");
  const marker = svg("marker", {id: "arrow", viewBox: "0 0 10 10", refX: "10", refY: "5", markerWidth: "6", markerHeight: "6", orient: "auto-start-reverse"});
  marker.append(svg("path", {d: "M 0 0 L 10 5 L 0 10 z", fill: "#e07b00"}));
  defs.append(marker); view.append(defs);
  const bend = (a, b, k) => {
    const [x1, y1] = a, [x2, y2] = b, mx = (x1 + x2) / 2, my = (y1 + y2) / 2, dx = x2 - x1, dy = y2 - y1;
    return `M ${x1} ${y1} Q ${mx - dy * k} ${my + dx * k} ${x2} ${y2}`;
  };
  const shorten = (a, b, by) => {
    const dx = b[0] - a[0], dy = b[1] - a[1], d = Math.hypot(dx, dy) || 1;
    return [[a[0] + (dx * by) / d, a[1] + (dy * by) / d], [b[0] - (dx * by) / d, b[1] - (dy * by) / d]];
  };
  for (const [k, status] of edges) {
    const [a, b] = k.split(">"); if (!pos.has(a) || !pos.has(b)) continue;
    const [p, q] = shorten(pos.get(a), pos.get(b), 34);
    const cls = ["RUNNING", "INACTIVE"].includes(status) ? status : "other";
    view.append(svg("path", {d: bend(p, q, 0.08), class: "chl " + cls, "data-from": a, "data-to": b, "data-status": status}));
  }
  for (const [k, count] of flow) {
    const [a, b] = k.split(">"); if (!pos.has(a) || !pos.has(b)) continue;
    let path;
    if (a === b) { const [x, y] = pos.get(a); path = `M ${x - 12} ${y - 30} C ${x - 50} ${y - 90} ${x + 50} ${y - 90} ${x + 12} ${y - 30}`; }
    else { const [p, q] = shorten(pos.get(a), pos.get(b), 36); path = bend(p, q, -0.18); }
    view.append(svg("path", {d: path, class: "flow", "stroke-width": String(Math.min(8, 1 + count / 5)), "marker-end": "url(#arrow)",
                             "data-from": a, "data-to": b, "data-count": String(count)}));
    const [x1, y1] = pos.get(a), [x2, y2] = pos.get(b);
    const label = svg("text", {class: "flow-label", x: String((x1 + x2) / 2 + (a === b ? 0 : 12)), y: String((y1 + y2) / 2 - (a === b ? 80 : 12))});
    label.textContent = String(count); view.append(label);
  }
  for (const n of names) {
    const [x, y] = pos.get(n), info = nodes.get(n);
    const g = svg("g", {class: "node" + (info.repos ? " repos" : ""), "data-qmgr": n, "data-repos": String(info.repos)});
    if (info.repos) g.append(svg("circle", {class: "outer", cx: x, cy: y, r: 31}));
    g.append(svg("circle", {cx: x, cy: y, r: 26}));
    const t = svg("text", {x, y: y + 5}); t.textContent = n; g.append(t);
    const qs = svg("text", {class: "queues", x, y: y + 46}); qs.textContent = [...info.queues].sort().join(", "); g.append(qs);
    view.append(g);
  }
}
