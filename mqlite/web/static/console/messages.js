// A queue's messages: browse with bodies (text, hex, JSON), every MQMD field and property, the
// dead-letter header decoded; put with MQMD fields and properties; delete one; move or copy
// some or all to another queue; retry dead-letter messages; clear the queue (MQSC CLEAR QLOCAL).
import * as api from "./api.js";
import {el, button, output, dialog, confirmRun, notice, errorText} from "./ui.js";

const PERSISTENCE = {0: "Not persistent", 1: "Persistent", 2: "As queue default"};

function putAt(md) {
  const d = md.putDate, t = md.putTime;
  return d.length === 8 ? `${d.slice(0, 4)}-${d.slice(4, 6)}-${d.slice(6)} ${t.slice(0, 2)}:${t.slice(2, 4)}:${t.slice(4, 6)}` : d;
}
function bytesOf(b64) { const s = atob(b64); const out = new Uint8Array(s.length); for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i); return out; }
export function hexDump(bytes) {
  const lines = [];
  for (let off = 0; off < bytes.length; off += 16) {
    const row = [...bytes.slice(off, off + 16)];
    const hex = row.map((b) => b.toString(16).padStart(2, "0")).join(" ").padEnd(47, " ");
    const text = row.map((b) => (b >= 32 && b < 127 ? String.fromCharCode(b) : ".")).join("");
    lines.push(off.toString(16).padStart(8, "0") + "  " + hex + "  " + text);
  }
  return lines.join("\n");
}
export function asText(bytes) { return new TextDecoder("utf-8", {fatal: false}).decode(bytes); }
export function asJson(bytes) { try { return JSON.stringify(JSON.parse(asText(bytes)), null, 2); } catch (e) { return null; } }

function detail(m) {
  const bytes = bytesOf(m.body);
  const json = asJson(bytes);
  const views = {Text: asText(bytes), Hex: hexDump(bytes)};
  if (json !== null) views.JSON = json;
  const body = el("pre", {class: "body", id: "message-body", tabindex: "0"}, views[json !== null ? "JSON" : "Text"]);
  const tabs = el("div", {class: "tabs", role: "tablist"}, ...Object.keys(views).map((k) =>
    button(k, (ev) => { body.textContent = views[k]; tabs.querySelectorAll("button").forEach((b) => b.setAttribute("aria-selected", String(b === ev.target))); },
           {role: "tab", "aria-selected": String(k === (json !== null ? "JSON" : "Text")), "data-view": k})));
  const mdRows = Object.entries(m.md).map(([k, v]) => el("tr", {}, el("th", {scope: "row"}, k), el("td", {"data-field": k}, String(v))));
  const propRows = Object.entries(m.properties).map(([k, v]) => el("tr", {}, el("th", {scope: "row"}, k), el("td", {"data-property": k}, String(v))));
  return el("div", {class: "message-detail", id: "message-detail"},
    el("h2", {}, `Message ${m.position}`, el("span", {class: "sub"}, ` ${m.length} bytes, format ${m.format || "(none)"}`)),
    m.dlh ? el("section", {class: "dlh", id: "dlh"}, el("h3", {}, "Dead-letter header"),
      el("table", {}, ...Object.entries(m.dlh).map(([k, v]) => el("tr", {}, el("th", {scope: "row"}, k), el("td", {"data-dlh": k}, String(v)))))) : "",
    el("h3", {}, "Body"), tabs, body,
    el("details", {open: true}, el("summary", {}, `Properties (${propRows.length})`), el("table", {id: "message-properties"}, ...propRows)),
    el("details", {}, el("summary", {}, "MQMD"), el("table", {id: "message-md"}, ...mdRows)));
}

export async function messagesView(view, qm, queue) {
  let messages = [];
  const list = el("div", {id: "message-list"});
  const side = el("div", {id: "message-side"});
  const result = el("div", {id: "result"});
  const selected = new Set();
  async function load() {
    try { messages = (await api.browse(qm, queue)).messages; }
    catch (e) { list.replaceChildren(el("p", {class: "error", id: "browse-error"}, errorText(e))); return; }
    selected.clear();
    const head = el("tr", {}, el("th", {scope: "col"}, el("span", {class: "visually-hidden"}, "Select")),
      ...["#", "Message id", "Put", "Format", "Persistence", "Priority", "Length", "Properties"].map((h) => el("th", {scope: "col"}, h)),
      messages.some((m) => m.dlh) ? el("th", {scope: "col"}, "Reason") : "");
    const rows = messages.map((m) => {
      const box = el("input", {type: "checkbox", "aria-label": `Select message ${m.position}`});
      box.addEventListener("change", () => (box.checked ? selected.add(m.md.messageId) : selected.delete(m.md.messageId)));
      const open = el("a", {href: "#", "data-msgid": m.md.messageId, onclick: (ev) => { ev.preventDefault(); side.replaceChildren(detail(m)); }},
        m.md.messageId.slice(0, 16) + "…");
      return el("tr", {"data-msgid": m.md.messageId}, el("td", {}, box), el("td", {}, String(m.position)), el("td", {}, open),
        el("td", {}, putAt(m.md)), el("td", {}, m.format), el("td", {}, PERSISTENCE[m.md.persistence] || ""),
        el("td", {}, String(m.md.priority)), el("td", {}, String(m.length)), el("td", {}, String(Object.keys(m.properties).length)),
        messages.some((x) => x.dlh) ? el("td", {}, m.dlh ? m.dlh.reasonName : "") : "");
    });
    list.replaceChildren(el("p", {id: "message-count"}, `${messages.length} message${messages.length === 1 ? "" : "s"}` +
      (messages.length >= 200 ? " (the first 200)" : "")),
      el("table", {class: "objects", id: "messages"}, el("thead", {}, head), el("tbody", {}, ...rows)));
    if (messages.length) side.replaceChildren(detail(messages[0])); else side.replaceChildren();
  }
  const ids = () => [...selected];
  const actions = el("div", {class: "toolbar"},
    button("Refresh", load),
    button("Put message", () => putDialog(qm, queue).then((done) => done && load()), {class: "primary", id: "put-message"}),
    button("Delete selected", async () => {
      if (!selected.size) { notice("Select the messages first.", true); return; }
      if (!(await dialog("Delete messages?", el("p", {}, `${selected.size} message(s) will be got from ${queue} and discarded.`),
                         [["Cancel", false], ["Delete", true, "danger"]]))) return;
      for (const id of ids()) { try { await api.deleteMessage(qm, queue, id); } catch (e) { notice(errorText(e), true); } }
      load();
    }, {id: "delete-messages"}),
    button("Move or copy…", () => moveDialog(qm, queue, ids()).then((done) => {
      if (!done) return;
      selected.clear();                          // (what was chosen is done with: nothing stays selected)
      list.querySelectorAll("input[type=checkbox]").forEach((c) => { c.checked = false; });
      return load();
    }), {id: "move-messages"}),
    button("Retry (dead letters)", async () => {
      const chosen = ids().length ? ids() : messages.filter((m) => m.dlh).map((m) => m.md.messageId);
      if (!chosen.length) { notice("No dead-letter messages to retry.", true); return; }
      const r = await api.retryMessages(qm, queue, chosen);
      const lines = r.results.map((x) => x.done ? `${x.messageId.slice(0, 16)}… put to ${x.queue}` : `${x.messageId.slice(0, 16)}… stays: ${x.reasonName}`);
      result.replaceChildren(output(lines, "retry-result"));
      load();
    }, {id: "retry-messages"}),
    button("Clear queue", async () => {
      const text = `CLEAR QLOCAL(${api.named(queue)})`;
      if (!(await confirmRun(`Clear ${queue}?`, text))) return;
      const r = await api.mqsc(qm, text);
      result.replaceChildren(output(r.lines, "mqsc-result"));
      load();
    }, {class: "danger", id: "clear-queue"}));
  view.replaceChildren(el("h1", {}, `Messages on ${queue}`, el("span", {class: "sub"}, ` (${qm})`)), actions, result,
    el("div", {class: "split"}, list, side));
  await load();
}

const MD_FIELDS = [["format", "MQSTR"], ["persistence", "0"], ["priority", "0"], ["expiry", "-1"], ["correlationId", ""],
  ["replyToQueue", ""], ["replyToQmgr", ""], ["msgType", "8"], ["feedback", "0"], ["report", "0"], ["applIdentityData", ""]];

export function putDialog(qm, queue) {
  const body = el("textarea", {id: "put-body", rows: 6, "aria-label": "Message body"});
  const enc = el("select", {id: "put-encoding", "aria-label": "Body is"}, ...["text", "hex", "base64"].map((v) => el("option", {value: v}, v)));
  const md = MD_FIELDS.map(([k, v]) => {
    const input = k === "persistence" ? el("select", {id: "put-" + k}, el("option", {value: "0"}, "Not persistent"), el("option", {value: "1"}, "Persistent"))
      : el("input", {id: "put-" + k, value: v});
    return [k, input, el("div", {class: "field"}, el("label", {for: "put-" + k}, k), input)];
  });
  const props = el("textarea", {id: "put-properties", rows: 3, placeholder: "name=value, one a line (numbers and true/false typed)",
                                "aria-label": "Properties"});
  const problem = el("p", {class: "error", id: "put-error"});
  const form = el("div", {class: "put-form"}, el("div", {class: "field"}, el("label", {for: "put-body"}, "Body"), body),
    el("div", {class: "field"}, el("label", {for: "put-encoding"}, "Body is"), enc),
    el("div", {class: "fields"}, ...md.map((m) => m[2])),
    el("div", {class: "field"}, el("label", {for: "put-properties"}, "Properties"), props), problem);
  return dialog(`Put a message to ${queue}`, form, [["Cancel", false], ["Put", () => {
    const fields = {};
    for (const [k, input] of md) {
      const v = input.value.trim();
      if (v === "") continue;
      if (k === "format" && v === "MQSTR" && enc.value === "text") continue;
      fields[k] = /^(persistence|priority|expiry|msgType|feedback|report)$/.test(k) ? Number(v) : v;
    }
    if (enc.value !== "text" && !("format" in fields)) fields.format = "";
    const properties = {};
    for (const line of props.value.split("\n").map((s) => s.trim()).filter(Boolean)) {
      const i = line.indexOf("="); if (i < 1) continue;
      const raw = line.slice(i + 1).trim();
      properties[line.slice(0, i).trim()] = /^-?\d+$/.test(raw) ? Number(raw) : raw === "true" ? true : raw === "false" ? false : raw;
    }
    return {body: body.value, bodyEncoding: enc.value, md: fields, properties};
  }, "primary"]]).then(async (message) => {
    if (!message) return false;
    try { const r = await api.putMessage(qm, queue, message); notice(`Put ${r.messageId}`); return true; }
    catch (e) { notice(errorText(e), true); return false; }
  });
}

export function moveDialog(qm, queue, ids) {
  const to = el("input", {id: "move-to", "aria-label": "Target queue", required: true});
  const copy = el("input", {type: "checkbox", id: "move-copy"});
  const body = el("div", {}, el("p", {}, ids.length ? `${ids.length} selected message(s)` : `Every message on ${queue}`),
    el("div", {class: "field"}, el("label", {for: "move-to"}, "To queue"), to),
    el("label", {}, copy, " Copy (leave the originals)"));
  return dialog("Move or copy messages", body, [["Cancel", null], ["Go", () => ({to: to.value.trim(), copy: copy.checked}), "primary"]])
    .then(async (choice) => {
      if (!choice || !choice.to) return false;
      try {
        const r = await api.moveMessages(qm, queue, choice.to, ids.length ? ids : null, choice.copy);
        notice(`${choice.copy ? "Copied" : "Moved"} ${r.count} message(s) to ${choice.to}` +
               (r.refused ? `; stopped: ${r.refused.reasonName}` : ""), Boolean(r.refused));
        return true;
      } catch (e) { notice(errorText(e), true); return false; }
    });
}
