// Objects: list (filter, columns), view every attribute, create (from the SYSTEM.DEF* defaults or
// like another), alter and delete. The forms are made from the attribute table (/console/api/schema:
// kinds, ranges, MQSC words, help); each shows the MQSC it will run, and runs it through the REST
// API's runCommand, showing runmqsc's answer as MQ words it.
import * as api from "./api.js";
import {el, button, output, table, savedColumns, confirmRun, notice, errorText} from "./ui.js";
import {go} from "./router.js";
import {GROUPS, CHANNEL_TYPES} from "./groups.js";

export {GROUPS};

// The object DEFINE takes its values from when no LIKE is given (as crtmqm makes them).
const DEFAULTS = {QLOCAL: "SYSTEM.DEFAULT.LOCAL.QUEUE", QMODEL: "SYSTEM.DEFAULT.MODEL.QUEUE",
  QALIAS: "SYSTEM.DEFAULT.ALIAS.QUEUE", QREMOTE: "SYSTEM.DEFAULT.REMOTE.QUEUE", SDR: "SYSTEM.DEF.SENDER",
  SVR: "SYSTEM.DEF.SERVER", RCVR: "SYSTEM.DEF.RECEIVER", RQSTR: "SYSTEM.DEF.REQUESTER", CLNTCONN: "SYSTEM.DEF.CLNTCONN",
  SVRCONN: "SYSTEM.DEF.SVRCONN", CLUSSDR: "SYSTEM.DEF.CLUSSDR", CLUSRCVR: "SYSTEM.DEF.CLUSRCVR", AMQP: "SYSTEM.DEF.AMQP",
  TOPIC: "SYSTEM.DEFAULT.TOPIC", LISTENER: "SYSTEM.DEFAULT.LISTENER.TCP", SERVICE: "SYSTEM.DEF.SERVICE",
  PROCESS: "SYSTEM.DEFAULT.PROCESS", NAMELIST: "SYSTEM.DEFAULT.NAMELIST", COMMINFO: "SYSTEM.DEFAULT.COMMINFO.MULTICAST"};
const QUALIFIER_OF = (type) => (CHANNEL_TYPES.includes(type) ? "channel" : type.toLowerCase());
export const groupOf = (type) => Object.keys(GROUPS).find((g) => GROUPS[g].types.includes(type));

async function withStatus(qm, group, columns) {
  const g = GROUPS[group];
  const rows = await api.objects(qm, g.qualifier, "*", columns);
  if (g.status) {
    const status = new Map((await api.objects(qm, g.status, "*")).map((s) => [s[g.key], s]));
    for (const r of rows) {
      const s = status.get(r[g.key]);
      r.STATUS = s ? s.STATUS : (group === "channels" ? "INACTIVE" : "STOPPED");
      if (s && s.PID !== undefined) r.PID = s.PID;
    }
  }
  return rows;
}

// --- the list ---------------------------------------------------------------------------------
export async function listView(view, qm, group, actions) {
  const g = GROUPS[group];
  // Only the columns shown are asked for (a PCF inquiry narrowed to them: 1,000 queues cost what
  // their columns cost); the column picker offers every attribute of the group's types.
  // (the attribute table is not waited for: the picker adds every attribute when it is opened)
  let columns = savedColumns(group, g.columns);
  let rows = await withStatus(qm, group, columns);
  const all = [...new Set([...g.columns, ...(g.status ? ["STATUS"] : []), ...rows.flatMap((r) => Object.keys(r))])];
  const everyAttribute = async () => {
    const types = await api.schema();
    return g.types.flatMap((t) => (types[t] ? types[t].attrs.map((a) => a.name) : []));
  };
  const typeOf = (r) => (group === "channels" ? r.CHLTYPE : g.typeKey === "TYPE" ? r.TYPE : g.types[0]);
  const showSystem = el("input", {type: "checkbox", id: "show-system"});
  const visible = () => rows.filter((r) => showSystem.checked || !String(r[g.key]).startsWith("SYSTEM."));
  const t = table({id: "object-list", rows: visible(), columns: g.columns, all, key: g.key, storage: group,
    onColumns: async (shown) => { columns = shown; await refresh(); }, moreColumns: everyAttribute,
    cell: (r, c) => (c === g.key ? el("a", {href: `#/qm/${qm}/object/${typeOf(r)}/${encodeURIComponent(r[g.key])}`}, r[g.key])
                     : c === "STATUS" ? el("span", {class: "status " + r.STATUS}, r.STATUS) : undefined),
    actions: (r) => [
      ...(actions ? actions(r, typeOf(r), refresh) : []),
      button("Create like", () => go(`#/qm/${qm}/new/${typeOf(r)}?like=${encodeURIComponent(r[g.key])}`)),
      button("Delete", () => deleteObject(qm, typeOf(r), r[g.key], refresh), {class: "danger"})]});
  showSystem.addEventListener("change", () => t.redraw(visible()));
  async function refresh() { rows = await withStatus(qm, group, columns); t.redraw(visible()); }
  const create = el("select", {"aria-label": "Type to create", id: "create-type"},
    ...g.types.map((type) => el("option", {value: type}, type)));
  view.replaceChildren(
    el("h1", {}, `${g.title} on ${qm}`),
    el("div", {class: "toolbar"},
      g.types.length > 1 ? create : "",
      button("Create", () => go(`#/qm/${qm}/new/${g.types.length > 1 ? create.value : g.types[0]}`), {class: "primary", id: "create"}),
      button("Refresh", refresh),
      el("label", {}, showSystem, " Show SYSTEM objects")),
    t);
}

export async function deleteObject(qm, type, name, after) {
  const qualifier = type === "SUB" ? "SUB" : CHANNEL_TYPES.includes(type) ? "CHANNEL" : type;
  const text = `DELETE ${qualifier}(${api.named(name)})`;
  if (!(await confirmRun(`Delete ${name}?`, text))) return;
  const r = await api.mqsc(qm, text);
  notice(r.lines.join(" "), !r.ok);
  if (r.ok && after) after();
}

// --- the form ---------------------------------------------------------------------------------
function mqscValue(attr, value) {
  if (attr.kind === "list") return "(" + (value.length ? value.map(api.quoted).join(",") : "") + ")";
  if (attr.kind === "enum") return `(${value})`;
  if (attr.kind === "int") return /^-?\d+$/.test(String(value)) ? `(${value})` : `(${value})`;
  return `(${api.quoted(value)})`;
}

function field(attr, value, editable) {
  const id = "f-" + attr.name;
  const help = el("small", {id: id + "-help", class: "help"}, attr.help || "");
  let input;
  if (attr.kind === "flag") {
    input = el("input", {type: "checkbox", id, "data-attr": attr.name, "aria-describedby": id + "-help"});
    input.checked = Boolean(value);
  } else if (attr.values && attr.values.length && attr.kind !== "int") {
    input = el("select", {id, "data-attr": attr.name, "aria-describedby": id + "-help"},
      ...attr.values.map((w) => el("option", {value: w}, w)));
    if (value !== undefined && !attr.values.includes(String(value))) input.append(el("option", {value: String(value)}, String(value)));
    input.value = value === undefined ? attr.default : String(value);
  } else if (attr.kind === "list") {
    input = el("textarea", {id, rows: 3, "data-attr": attr.name, "aria-describedby": id + "-help",
                            placeholder: "one name a line"});
    input.value = (Array.isArray(value) ? value : []).join("\n");
  } else if (attr.kind === "int") {
    // (an integer attribute with words too, such as EXPIRY's NOLIMIT: text, checked as MQ checks it)
    input = el("input", {type: attr.values && attr.values.length ? "text" : "number", id, "data-attr": attr.name,
                         min: attr.lo, max: attr.hi, "aria-describedby": id + "-help",
                         list: attr.values && attr.values.length ? id + "-words" : null});
    input.value = value === undefined ? attr.default : value;
  } else {
    input = el("input", {type: attr.name.includes("PASSWORD") || attr.name === "KEYRPWD" || attr.name === "LDAPPWD" ? "password" : "text",
                         id, "data-attr": attr.name, maxlength: attr.length || null, "aria-describedby": id + "-help"});
    input.value = value === undefined || value === null ? "" : value;
  }
  if (!editable) input.disabled = true;
  const words = attr.kind === "int" && attr.values && attr.values.length
    ? el("datalist", {id: id + "-words"}, ...attr.values.map((w) => el("option", {value: w}))) : "";
  return el("div", {class: "field" + (editable ? "" : " readonly")},
    el("label", {for: id}, attr.name), input, words, help);
}

function valueOf(input, attr) {
  if (attr.kind === "flag") return input.checked;
  if (attr.kind === "list") return input.value.split("\n").map((s) => s.trim()).filter(Boolean);
  if (attr.kind === "int" && /^-?\d+$/.test(input.value.trim())) return Number(input.value.trim());
  return attr.kind === "int" || attr.kind === "enum" ? input.value.trim().toUpperCase() : input.value;
}

function same(a, b) { return JSON.stringify(a ?? "") === JSON.stringify(b ?? ""); }

function clause(attr, value) {
  if (attr.kind === "flag") return value ? attr.name : attr.off;
  return attr.name + mqscValue(attr, value);
}

// The form of an object's attributes; `build(changes)` gives its MQSC; returns {node, changes()}.
function form(spec, base, creating) {
  const inputs = [];
  const groups = el("div", {class: "fields"});
  for (const attr of spec.attrs) {
    const editable = attr.alterable && (creating || !attr.createOnly);
    if (!attr.alterable && creating) continue;          // (display-only attributes have no value yet)
    const f = field(attr, base[attr.name], editable);
    groups.append(f);
    if (editable) inputs.push([attr, f.querySelector("[data-attr]")]);
  }
  const changes = () => inputs.map(([attr, input]) => [attr, valueOf(input, attr)])
    .filter(([attr, v]) => !same(v, base[attr.name] === undefined ? (creating ? attr.default : undefined) : base[attr.name]))
    .filter(([attr, v]) => !(base[attr.name] === undefined && !creating && (v === "" || (Array.isArray(v) && !v.length))));
  return {node: groups, changes, inputs};
}

export async function objectView(view, qm, type, name) {
  const types = await api.schema();
  const spec = types[type];
  if (!spec) { view.replaceChildren(el("p", {class: "error"}, `Unknown object type ${type}`)); return; }
  const found = type === "QMGR" ? await api.objects(qm, "qmgr") : await api.objects(qm, QUALIFIER_OF(type), name);
  const obj = found.find((o) => type === "QMGR" || String(o[GROUPS[groupOf(type)].key]) === name);
  if (!obj) { view.replaceChildren(el("h1", {}, name), output([`AMQ8147E: IBM MQ object ${name} not found.`])); return; }
  const qualifier = spec.qualifier === "CHANNEL" ? "CHANNEL" : spec.qualifier;
  const target = type === "QMGR" ? "QMGR" : `${qualifier}(${api.named(name)})`;
  const f = form(spec, obj, false);
  const preview = el("pre", {class: "mqsc-preview", id: "mqsc-preview"});
  const result = el("div", {id: "result"});
  const text = () => {
    const parts = f.changes().map(([attr, v]) => clause(attr, v));
    const chl = CHANNEL_TYPES.includes(type) ? ` CHLTYPE(${type})` : "";
    return parts.length ? `ALTER ${target}${chl} ${parts.join(" ")}` : "";
  };
  const update = () => { preview.textContent = text() || "(no changes)"; };
  f.node.addEventListener("input", update); f.node.addEventListener("change", update); update();
  const alter = button("Alter", async () => {
    const command = text();
    if (!command) return;
    const r = await api.mqsc(qm, command);
    result.replaceChildren(output(r.lines, "mqsc-result"));
    if (r.ok) { notice(r.lines[0] || "Done"); objectView(view, qm, type, name); }
  }, {class: "primary", id: "alter"});
  const extra = [];
  if (type !== "QMGR") {
    extra.push(button("Create like", () => go(`#/qm/${qm}/new/${type}?like=${encodeURIComponent(name)}`)),
               button("Delete", () => deleteObject(qm, type, name, () => go(`#/qm/${qm}/${groupOf(type)}`)), {class: "danger", id: "delete"}));
  }
  if (type === "QLOCAL") extra.push(button("Browse messages", () => go(`#/qm/${qm}/messages/${encodeURIComponent(name)}`)));
  view.replaceChildren(
    el("h1", {}, type === "QMGR" ? `Queue manager ${qm}` : `${type} ${name}`, el("span", {class: "sub"}, ` on ${qm}`)),
    el("div", {class: "toolbar"}, alter, ...extra),
    el("h2", {}, "MQSC"), preview, result, f.node);
}

export async function createView(view, qm, type, like) {
  const types = await api.schema();
  const spec = types[type];
  if (!spec) { view.replaceChildren(el("p", {class: "error"}, `Unknown object type ${type}`)); return; }
  let base = {};
  const source = like || DEFAULTS[type];
  if (source) {
    const found = await api.objects(qm, QUALIFIER_OF(type), source).catch(() => []);
    base = found[0] || {};
  }
  if (!Object.keys(base).length) for (const a of spec.attrs) base[a.name] = a.default;
  const nameInput = el("input", {id: "f-name", required: true, maxlength: type === "SUB" ? 10240 : CHANNEL_TYPES.includes(type) ? 20 : 48,
                                 "aria-describedby": "f-name-help"});
  const f = form(spec, base, true);
  const preview = el("pre", {class: "mqsc-preview", id: "mqsc-preview"});
  const result = el("div", {id: "result"});
  const qualifier = spec.qualifier;
  const text = () => {
    const name = nameInput.value.trim();
    if (!name) return "";
    const parts = [`DEFINE ${qualifier}(${api.named(name)})`];
    if (CHANNEL_TYPES.includes(type)) parts.push(`CHLTYPE(${type})`);
    if (like) parts.push(`LIKE(${api.named(like)})`);
    for (const [attr, v] of f.changes()) parts.push(clause(attr, v));
    return parts.join(" ");
  };
  const update = () => { preview.textContent = text() || "(name the object)"; };
  for (const n of [nameInput, f.node]) { n.addEventListener("input", update); n.addEventListener("change", update); }
  update();
  const create = button("Create", async () => {
    const command = text();
    if (!command) { nameInput.focus(); return; }
    try {
      const r = await api.mqsc(qm, command);
      result.replaceChildren(output(r.lines, "mqsc-result"));
      if (r.ok) { notice(r.lines[0] || "Created"); go(`#/qm/${qm}/object/${type}/${encodeURIComponent(nameInput.value.trim())}`); }
    } catch (e) { result.replaceChildren(output([errorText(e)], "mqsc-result")); }
  }, {class: "primary", id: "create-object"});
  view.replaceChildren(
    el("h1", {}, `New ${type}`, el("span", {class: "sub"}, like ? ` like ${like}` : source ? ` from ${source}` : ""), ` on ${qm}`),
    el("div", {class: "field"}, el("label", {for: "f-name"}, "Name"), nameInput,
       el("small", {id: "f-name-help", class: "help"}, "The new object's name.")),
    el("div", {class: "toolbar"}, create),
    el("h2", {}, "MQSC"), preview, result, f.node);
  nameInput.focus();
}

