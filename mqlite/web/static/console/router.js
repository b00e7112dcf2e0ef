// Hash routes: #/qm/{qmgr}/{view}/{...}. Each view renders into <main id="view">.
const routes = [];
export function route(pattern, render) { routes.push([pattern, render]); }
export function go(hash) { if (location.hash === hash) dispatch(); else location.hash = hash; }
export function current() { return location.hash || "#/"; }

export async function dispatch() {
  const [path, query] = current().slice(1).split("?");
  const params = new URLSearchParams(query || "");
  const parts = path.split("/").filter(Boolean).map(decodeURIComponent);
  for (const [pattern, render] of routes) {
    const want = pattern.split("/").filter(Boolean);
    if (want.length !== parts.length) continue;
    const args = [];
    if (want.every((w, i) => (w.startsWith(":") ? (args.push(parts[i]), true) : w === parts[i]))) {
      const view = document.getElementById("view");
      view.setAttribute("aria-busy", "true");
      try { await render(view, ...args, params); }
      catch (e) {
        const msg = e && e.message ? e.message : String(e);
        const p = document.createElement("p"); p.className = "error"; p.id = "view-error"; p.textContent = msg;
        view.replaceChildren(p);
      } finally { view.removeAttribute("aria-busy"); }
      window.dispatchEvent(new Event("mq-routed"));
      const h1 = view.querySelector("h1"); if (h1) document.title = h1.textContent + " - mqlite console";
      return;
    }
  }
  location.hash = "#/";
}
window.addEventListener("hashchange", dispatch);
