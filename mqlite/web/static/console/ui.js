import {savedColumns} from "./groups.js";

export {savedColumns};

// DOM helpers shared by the console's views: elements, a sortable filterable table with the columns
// an administrator picks (kept in localStorage), runmqsc output, confirmation and notices.
export const $ = (sel, root) => (root || document).querySelector(sel);

export function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v === true ? "" : v);
  }
  for (const kid of kids.flat()) if (kid !== undefined && kid !== null && kid !== false) e.append(kid);
  return e;
}

export function svg(tag, attrs) {
  const e = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  return e;
}

export function button(label, onclick, attrs) {
  return el("button", Object.assign({type: "button", onclick}, attrs || {}), label);
}

// runmqsc's response lines, as runmqsc prints them; errors marked.
export function output(lines, id) {
  const pre = el("pre", {class: "mqsc-output", id: id || null, "aria-live": "polite"});
  for (const line of lines) {
    pre.append(el("span", {class: /^AMQ\d{4}[ES]:/.test(line) || /^MQWB\d{4}E/.test(line) ? "error" : ""}, line), "\n");
  }
  return pre;
}

export function notice(text, isError) {
  const box = $("#notices");
  const n = el("div", {class: "notice" + (isError ? " error" : ""), role: isError ? "alert" : "status"}, text);
  box.append(n);
  setTimeout(() => n.remove(), isError ? 12000 : 5000);
}

export function errorText(e) {
  return e && e.message ? e.message : String(e);
}

// A dialog (the native <dialog>: focus kept in it, Escape closes it). Resolves with the value
// the chosen button gives, or null.
export function dialog(title, body, actions) {
  return new Promise((resolve) => {
    const d = el("dialog", {class: "dialog", "aria-label": title});
    const done = (v) => { d.close(); d.remove(); resolve(v); };
    d.append(el("h2", {}, title), body,
      el("div", {class: "actions"}, ...actions.map(([label, value, cls]) =>
        button(label, () => done(typeof value === "function" ? value() : value), {class: cls || ""}))));
    d.addEventListener("cancel", () => done(null));
    document.body.append(d);
    d.showModal();
  });
}

export const confirmRun = (title, mqscText) =>
  dialog(title, el("div", {}, el("p", {}, "This runs:"), el("pre", {class: "mqsc-preview"}, mqscText)),
         [["Cancel", false], ["Run", true, "primary"]]);


// A table of rows (objects) with a text filter, sortable headers, a column picker and pages;
// `columns` are the keys shown by default, `all` every key there is; `cell(row, key)` may return a
// node; `onColumns(shown)` is told when the columns picked change (to fetch what they need).
export function table({id, rows, columns, all, key, cell, actions, storage, onColumns, pageSize, moreColumns}) {
  const wanted = savedColumns(storage, columns);
  let shown = wanted.filter((c) => all.includes(c));
  let sortKey = key, sortUp = true, filter = "", page = 0, size = pageSize || 50;
  const wrap = el("div", {class: "table-wrap"});
  const head = el("div", {class: "table-tools"});
  const input = el("input", {type: "search", placeholder: "Filter (name or text; * wildcard)", "aria-label": "Filter",
                             class: "filter", oninput: () => { filter = input.value.trim(); draw(); }});
  const picker = el("details", {class: "columns"}, el("summary", {}, "Columns"));
  const list = el("div", {class: "column-list"});
  const addChoice = (c) => {
    const box = el("input", {type: "checkbox", value: c, "aria-label": c});
    box.checked = shown.includes(c);
    box.addEventListener("change", () => {
      shown = all.filter((k) => (k === c ? box.checked : shown.includes(k)));
      if (storage) localStorage.setItem("cols:" + storage, JSON.stringify(shown));
      if (onColumns) onColumns(shown); else draw();
    });
    list.append(el("label", {}, box, " ", c));
  };
  all.forEach(addChoice);
  if (moreColumns) {               // (more to choose from, asked for when the picker is first opened)
    picker.addEventListener("toggle", async () => {
      if (!picker.open || picker.dataset.more) return;
      picker.dataset.more = "1";
      for (const c of await moreColumns()) if (!all.includes(c)) { all.push(c); addChoice(c); }
    });
  }
  picker.append(list);
  const count = el("span", {class: "count", id: id ? id + "-count" : null});
  const sizes = el("select", {"aria-label": "Rows a page", class: "page-size"},
    ...[50, 100, 500, 0].map((n) => el("option", {value: String(n)}, n ? `${n} a page` : "all")));
  sizes.value = String(size);
  sizes.addEventListener("change", () => { size = Number(sizes.value); page = 0; draw(); });
  const prev = button("Previous", () => { page = Math.max(0, page - 1); draw(); }, {class: "page-prev"});
  const next = button("Next", () => { page += 1; draw(); }, {class: "page-next"});
  head.append(input, picker, count, sizes, prev, next);
  const tbl = el("table", {id, class: "objects"});
  wrap.append(head, tbl);
  const matches = (row) => {
    if (!filter) return true;
    if (filter.includes("*")) {
      const re = new RegExp("^" + filter.split("*").map((s) => s.replace(/[.+?^${}()|[\]\\]/g, "\\$&")).join(".*") + "$", "i");
      return re.test(String(row[key] || ""));
    }
    const f = filter.toLowerCase();
    return Object.values(row).some((v) => String(v).toLowerCase().includes(f));
  };
  function draw() {
    const visible = rows.filter(matches).sort((a, b) => {
      const x = a[sortKey], y = b[sortKey];
      // (object names are MQ's characters: a plain comparison, as runmqsc's order is, and quicker)
      const r = typeof x === "number" && typeof y === "number" ? x - y : compare(String(x ?? ""), String(y ?? ""));
      return sortUp ? r : -r;
    });
    const pages = size ? Math.max(1, Math.ceil(visible.length / size)) : 1;
    page = Math.min(page, pages - 1);
    const from = size ? page * size : 0, upto = size ? Math.min(visible.length, from + size) : visible.length;
    count.textContent = visible.length === rows.length ? `${rows.length} objects` : `${visible.length} of ${rows.length}`;
    if (pages > 1) count.textContent += `, ${from + 1}-${upto} shown`;
    prev.disabled = page === 0; next.disabled = page >= pages - 1;
    prev.hidden = next.hidden = pages <= 1;
    const hr = el("tr", {});
    for (const c of shown) {
      const th = el("th", {scope: "col", "aria-sort": c === sortKey ? (sortUp ? "ascending" : "descending") : "none"},
        button(c, () => { if (sortKey === c) sortUp = !sortUp; else { sortKey = c; sortUp = true; } draw(); },
               {class: "sort"}));
      hr.append(th);
    }
    if (actions) hr.append(el("th", {scope: "col"}, "Actions"));
    const body = el("tbody", {});
    for (const row of visible.slice(from, upto)) {
      const tr = el("tr", {"data-name": String(row[key] ?? "")});
      for (const c of shown) {
        const v = cell ? cell(row, c) : undefined;
        tr.append(el("td", {}, v !== undefined ? v : fmt(row[c])));
      }
      if (actions) tr.append(el("td", {class: "row-actions"}, ...actions(row)));
      body.append(tr);
    }
    tbl.replaceChildren(el("thead", {}, hr), body);
  }
  draw();
  wrap.redraw = (newRows) => { rows = newRows; draw(); };
  return wrap;
}

const compare = (a, b) => (a < b ? -1 : a > b ? 1 : 0);

export function fmt(v) {
  if (v === undefined || v === null) return "";
  if (Array.isArray(v)) return v.join(", ");
  return String(v);
}

export function sparkline(values, w, h) {
  w = w || 120; h = h || 24;
  if (values.length === 1) values = [values[0], values[0]];      // (one value: a level line, not a dot)
  const max = Math.max(1, ...values);
  const pts = values.map((v, i) => (values.length < 2 ? w : (i * w) / (values.length - 1)).toFixed(1) + "," +
    (h - 1 - ((h - 2) * v) / max).toFixed(1)).join(" ");
  const s = svg("svg", {class: "spark", width: w, height: h, viewBox: `0 0 ${w} ${h}`, role: "img",
                        "aria-label": `last ${values.length} values, latest ${values[values.length - 1] ?? 0}`});
  s.append(svg("polyline", {points: pts}));
  return s;
}
