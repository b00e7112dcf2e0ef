// Security: authority records (DISPLAY, SET and DELETE AUTHREC by profile and entity), channel
// authentication records (SET CHLAUTH, and MQ's MATCH(RUNCHECK): would this connection be allowed?),
// and the roles of the signed-in user as mqweb maps them.
import * as api from "./api.js";
import {el, button, output, table} from "./ui.js";
import {run} from "./ops.js";

const OBJTYPES = ["QMGR", "QUEUE", "TOPIC", "CHANNEL", "CLNTCONN", "PROCESS", "NAMELIST", "AUTHINFO", "LISTENER", "SERVICE", "COMMINFO", "RQMNAME"];
const AUTHS = ["ALL", "ALLADM", "ALLMQI", "NONE", "ALTUSR", "BROWSE", "CHG", "CLR", "CONNECT", "CRT", "CTRL", "CTRLX", "DLT",
               "DSP", "GET", "INQ", "PASSALL", "PASSID", "PUB", "PUT", "RESUME", "SET", "SETALL", "SETID", "SUB", "SYSTEM"];
const CHLAUTH_TYPES = ["BLOCKUSER", "BLOCKADDR", "SSLPEERMAP", "ADDRESSMAP", "USERMAP", "QMGRMAP"];

// runmqsc's display blocks (a header line, then KEY(value) fields) as objects.
export function blocks(lines, header) {
  const out = [];
  for (const line of lines) {
    if (line.startsWith(header)) { out.push({}); continue; }
    if (!out.length || !line.startsWith("   ")) continue;
    for (const m of line.matchAll(/([A-Z][A-Z0-9]*)\(([^)]*)\)/g)) out[out.length - 1][m[1]] = m[2].trim();
  }
  return out;
}

export async function securityView(view, qm, params) {
  const tab = params.get("tab") || "authrec";
  const who = await api.whoAmI();
  const tabs = el("nav", {class: "tabs", "aria-label": "Security"}, ...[["authrec", "Authority records"], ["chlauth", "Channel authentication"],
    ["roles", "Roles"]].map(([k, label]) => el("a", {href: `#/qm/${qm}/security?tab=${k}`, "aria-current": k === tab ? "page" : null}, label)));
  const body = el("div", {id: "security-body"});
  view.replaceChildren(el("h1", {}, `Security on ${qm}`), tabs, body);
  if (tab === "authrec") await authrecs(body, qm);
  else if (tab === "chlauth") await chlauths(body, qm);
  else roles(body, who);
}

async function authrecs(body, qm, said) {
  const r = await api.mqsc(qm, "DISPLAY AUTHREC");
  const rows = blocks(r.lines, "AMQ8864I");
  const profile = el("input", {id: "ar-profile", placeholder: "APP.** or a name", required: true});
  const objtype = el("select", {id: "ar-objtype"}, ...OBJTYPES.map((t) => el("option", {value: t}, t)));
  const kind = el("select", {id: "ar-kind"}, el("option", {value: "GROUP"}, "Group"), el("option", {value: "PRINCIPAL"}, "Principal (user)"));
  const entity = el("input", {id: "ar-entity", required: true});
  const add = el("select", {id: "ar-add", multiple: true, size: 6, "aria-label": "Authorities to add"}, ...AUTHS.map((a) => el("option", {value: a}, a)));
  const rmv = el("select", {id: "ar-remove", multiple: true, size: 6, "aria-label": "Authorities to remove"}, ...AUTHS.map((a) => el("option", {value: a}, a)));
  const preview = el("pre", {class: "mqsc-preview", id: "mqsc-preview"});
  const chosen = (s) => [...s.selectedOptions].map((o) => o.value);
  const text = () => {
    if (!profile.value.trim() || !entity.value.trim()) return "";
    const parts = [`SET AUTHREC PROFILE(${api.quoted(profile.value.trim())}) OBJTYPE(${objtype.value})`,
      `${kind.value}(${api.quoted(entity.value.trim())})`];
    if (chosen(add).length) parts.push(`AUTHADD(${chosen(add).join(",")})`);
    if (chosen(rmv).length) parts.push(`AUTHRMV(${chosen(rmv).join(",")})`);
    return parts.join(" ");
  };
  const update = () => { preview.textContent = text() || "(name a profile and an entity)"; };
  const result = el("div", {id: "result"}, said ? output(said, "mqsc-result") : "");
  const form = el("form", {class: "inline-form", id: "authrec-form", onsubmit: async (ev) => {
    ev.preventDefault();
    const command = text(); if (!command) return;
    const out = await api.mqsc(qm, command);
    result.replaceChildren(output(out.lines, "mqsc-result"));
    if (out.ok) authrecs(body, qm, out.lines);
  }},
    el("div", {class: "field"}, el("label", {for: "ar-profile"}, "Profile"), profile),
    el("div", {class: "field"}, el("label", {for: "ar-objtype"}, "Object type"), objtype),
    el("div", {class: "field"}, el("label", {for: "ar-kind"}, "Entity type"), kind),
    el("div", {class: "field"}, el("label", {for: "ar-entity"}, "Entity"), entity),
    el("div", {class: "field"}, el("label", {for: "ar-add"}, "Add"), add),
    el("div", {class: "field"}, el("label", {for: "ar-remove"}, "Remove"), rmv),
    el("button", {type: "submit", class: "primary", id: "set-authrec"}, "Set authority record"));
  form.addEventListener("input", update); form.addEventListener("change", update); update();
  const t = table({id: "authrecs", rows, columns: ["PROFILE", "ENTITY", "ENTTYPE", "OBJTYPE", "AUTHLIST"],
    all: [...new Set(rows.flatMap((x) => Object.keys(x)).concat(["PROFILE", "ENTITY", "ENTTYPE", "OBJTYPE", "AUTHLIST"]))], key: "PROFILE", storage: "authrec",
    actions: (x) => [button("Delete", async () => {
      const kindWord = x.ENTTYPE === "PRINCIPAL" ? "PRINCIPAL" : "GROUP";
      const done = await run(qm, `DELETE AUTHREC PROFILE(${api.quoted(x.PROFILE)}) OBJTYPE(${x.OBJTYPE}) ${kindWord}(${api.quoted(x.ENTITY)})`,
                             `Delete the authority record of ${x.ENTITY} for ${x.PROFILE}?`);
      if (done && done.ok) authrecs(body, qm);
    }, {class: "danger", "data-action": "delete"})]});
  body.replaceChildren(el("h2", {}, "Set an authority record"), form, el("h3", {}, "MQSC"), preview, result,
    el("h2", {}, `Authority records (${rows.length})`), rows.length ? t : output(r.lines));
}

async function chlauths(body, qm, said) {
  const rows = await api.display(qm, "chlauth", "*").catch(() => []);
  const upper = rows.map((x) => Object.fromEntries(Object.entries(x).map(([k, v]) => [k.toUpperCase(), Array.isArray(v) ? v.join(",") : v])));
  const t = table({id: "chlauths", rows: upper, columns: ["CHLAUTH", "TYPE", "ADDRESS", "USERLIST", "USERSRC", "MCAUSER", "CLNTUSER", "DESCR"],
    all: [...new Set(upper.flatMap((x) => Object.keys(x)))], key: "CHLAUTH", storage: "chlauth",
    actions: (x) => [button("Remove", async () => {
      const extra = x.ADDRESS && x.TYPE !== "BLOCKADDR" ? ` ADDRESS(${api.quoted(x.ADDRESS)})` : "";
      const user = x.TYPE === "USERMAP" ? ` CLNTUSER(${api.quoted(x.CLNTUSER)})` : x.TYPE === "QMGRMAP" ? ` QMNAME(${api.quoted(x.QMNAME)})`
        : x.TYPE === "SSLPEERMAP" ? ` SSLPEER(${api.quoted(x.SSLPEER)})` : "";
      const done = await run(qm, `SET CHLAUTH(${api.quoted(x.CHLAUTH)}) TYPE(${x.TYPE})${extra}${user} ACTION(REMOVE)`,
                             `Remove this ${x.TYPE} rule of ${x.CHLAUTH}?`);
      if (done && done.ok) chlauths(body, qm);
    }, {class: "danger", "data-action": "remove"})]});
  // A rule: the fields each type takes.
  const ch = el("input", {id: "ca-channel", value: "APP.*"});
  const type = el("select", {id: "ca-type"}, ...CHLAUTH_TYPES.map((x) => el("option", {value: x}, x)));
  const fields = {ADDRESS: el("input", {id: "ca-address"}), ADDRLIST: el("input", {id: "ca-addrlist", placeholder: "a,b"}),
    USERLIST: el("input", {id: "ca-userlist", placeholder: "a,b"}),
    CLNTUSER: el("input", {id: "ca-clntuser"}), SSLPEER: el("input", {id: "ca-sslpeer"}), QMNAME: el("input", {id: "ca-qmname"}),
    MCAUSER: el("input", {id: "ca-mcauser"}), DESCR: el("input", {id: "ca-descr"})};
  const usersrc = el("select", {id: "ca-usersrc"}, ...["MAP", "NOACCESS", "CHANNEL"].map((x) => el("option", {value: x}, x)));
  const preview = el("pre", {class: "mqsc-preview", id: "ca-preview"});
  const wants = {BLOCKUSER: ["USERLIST"], BLOCKADDR: ["ADDRLIST"], SSLPEERMAP: ["SSLPEER", "ADDRESS", "MCAUSER"],
    ADDRESSMAP: ["ADDRESS", "MCAUSER"], USERMAP: ["CLNTUSER", "ADDRESS", "MCAUSER"], QMGRMAP: ["QMNAME", "ADDRESS", "MCAUSER"]};
  const text = () => {
    const parts = [`SET CHLAUTH(${api.quoted(ch.value.trim() || "*")}) TYPE(${type.value})`];
    for (const k of wants[type.value].concat(["DESCR"])) {
      const v = fields[k].value.trim(); if (!v) continue;
      parts.push(k.endsWith("LIST") ? `${k}(${v.split(",").map((s) => api.quoted(s.trim())).join(",")})` : `${k}(${api.quoted(v)})`);
    }
    if (!["BLOCKUSER", "BLOCKADDR"].includes(type.value)) parts.push(`USERSRC(${usersrc.value})`);
    return parts.join(" ");
  };
  const update = () => {
    for (const [k, input] of Object.entries(fields)) input.parentElement.hidden = !(wants[type.value].includes(k) || k === "DESCR");
    usersrc.parentElement.hidden = ["BLOCKUSER", "BLOCKADDR"].includes(type.value);
    preview.textContent = text();
  };
  const result = el("div", {id: "result"}, said ? output(said, "mqsc-result") : "");
  const form = el("form", {class: "inline-form", id: "chlauth-form", onsubmit: async (ev) => {
    ev.preventDefault();
    const out = await api.mqsc(qm, text());
    result.replaceChildren(output(out.lines, "mqsc-result"));
    if (out.ok) chlauths(body, qm, out.lines);
  }}, el("div", {class: "field"}, el("label", {for: "ca-channel"}, "Channel profile"), ch),
    el("div", {class: "field"}, el("label", {for: "ca-type"}, "Type"), type),
    ...Object.entries(fields).map(([k, input]) => el("div", {class: "field"}, el("label", {for: input.id}, k), input)),
    el("div", {class: "field"}, el("label", {for: "ca-usersrc"}, "USERSRC"), usersrc),
    el("button", {type: "submit", class: "primary", id: "set-chlauth"}, "Add rule"));
  form.addEventListener("input", update); form.addEventListener("change", update);
  // MATCH(RUNCHECK): which rule a connection would meet.
  const rc = {channel: el("input", {id: "rc-channel", placeholder: "APP.SVRCONN"}), address: el("input", {id: "rc-address", placeholder: "192.0.2.1"}),
    clntuser: el("input", {id: "rc-clntuser"}), sslpeer: el("input", {id: "rc-sslpeer"}), qmname: el("input", {id: "rc-qmname"})};
  const rcOut = el("div", {id: "runcheck-result"});
  const check = el("form", {class: "inline-form", id: "runcheck-form", onsubmit: async (ev) => {
    ev.preventDefault();
    const parts = [`DISPLAY CHLAUTH(${api.quoted(rc.channel.value.trim())}) MATCH(RUNCHECK) ADDRESS(${api.quoted(rc.address.value.trim())})`];
    if (rc.clntuser.value.trim()) parts.push(`CLNTUSER(${api.quoted(rc.clntuser.value.trim())})`);
    if (rc.sslpeer.value.trim()) parts.push(`SSLPEER(${api.quoted(rc.sslpeer.value.trim())})`);
    if (rc.qmname.value.trim()) parts.push(`QMNAME(${api.quoted(rc.qmname.value.trim())})`);
    const out = await api.mqsc(qm, parts.join(" "));
    rcOut.replaceChildren(el("pre", {class: "mqsc-preview"}, parts.join(" ")), output(out.lines, "runcheck-output"));
  }}, ...Object.entries(rc).map(([k, input]) => el("div", {class: "field"}, el("label", {for: input.id}, k), input)),
    el("button", {type: "submit", class: "primary", id: "runcheck"}, "Would it be allowed?"));
  body.replaceChildren(el("h2", {}, "Would this connection be allowed? (MATCH(RUNCHECK))"), check, rcOut,
    el("h2", {}, "Add a rule"), form, el("h3", {}, "MQSC"), preview, result,
    el("h2", {}, `Channel authentication records (${upper.length})`), t);
  update();
}

function roles(body, who) {
  const can = {MQWebAdmin: "everything: any MQSC, messages, security, as mqweb's own user",
    MQWebAdminRO: "displays and browsing, as mqweb's own user; no changes",
    MQWebUser: "what the queue managers' authority records let this user do, as this user"};
  body.replaceChildren(el("h2", {}, `Signed in as ${who ? who.name : "?"}`),
    el("table", {id: "roles"}, el("thead", {}, el("tr", {}, el("th", {scope: "col"}, "Role"), el("th", {scope: "col"}, "Has it"), el("th", {scope: "col"}, "May do"))),
      el("tbody", {}, ...Object.entries(can).map(([role, what]) => el("tr", {"data-role": role}, el("th", {scope: "row"}, role),
        el("td", {}, who && who.role.includes(role) ? "yes" : "no"), el("td", {}, what))))),
    el("p", {}, "Roles come from mqweb's settings (setmqweb properties -k MQWebAdmin ... with group:NAME or user names)."));
}

