// The MQSC console: a command box with history (Up and Down walk it, kept in localStorage) whose
// output is runmqsc's, from the REST API's runCommand.
import * as api from "./api.js";
import {el, button, output} from "./ui.js";

const KEEP = 100;
export async function mqscView(view, qm) {
  const history = JSON.parse(localStorage.getItem("mqsc-history") || "[]");
  let at = history.length;
  const box = el("textarea", {id: "mqsc-command", rows: 3, spellcheck: "false", "aria-label": "MQSC command",
                              placeholder: "DISPLAY QLOCAL(*) CURDEPTH   (Enter runs it; Shift+Enter a new line)"});
  const log = el("div", {id: "mqsc-log", "aria-live": "polite"});
  async function runIt() {
    const command = box.value.trim();
    if (!command) return;
    if (history[history.length - 1] !== command) { history.push(command); history.splice(0, Math.max(0, history.length - KEEP)); }
    localStorage.setItem("mqsc-history", JSON.stringify(history));
    at = history.length;
    box.value = "";
    const entry = el("div", {class: "mqsc-entry"}, el("pre", {class: "mqsc-command"}, `${qm}> ${command}`));
    log.prepend(entry);
    try {
      const r = await api.mqsc(qm, command);
      entry.append(output(r.lines));
    } catch (e) { entry.append(output([e.message])); }
  }
  box.addEventListener("keydown", (ev) => {
    if (ev.key === "Enter" && !ev.shiftKey) { ev.preventDefault(); runIt(); }
    else if (ev.key === "ArrowUp" && !box.value.includes("\n") && at > 0) { ev.preventDefault(); box.value = history[--at]; }
    else if (ev.key === "ArrowDown" && !box.value.includes("\n")) { ev.preventDefault(); at = Math.min(history.length, at + 1); box.value = history[at] || ""; }
  });
  view.replaceChildren(el("h1", {}, `MQSC on ${qm}`), box,
    el("div", {class: "toolbar"}, button("Run", runIt, {class: "primary", id: "mqsc-run"}),
      button("Clear output", () => log.replaceChildren())), log);
  box.focus();
}
