// Hash routes: #/qm/{qmgr}/{view}/{...}. Each view renders into <main id="view">, a new one for
// each route: a page still waiting for its answers when another route is followed draws into the
// one it was given, no longer in the document, and not over the page shown now.
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
      const old = document.getElementById("view");
      const view = old.cloneNode(false);      // (its id, class and attributes; no children, no listeners)
      old.replaceWith(view);
      view.setAttribute("aria-busy", "true");
      try { await render(view, ...args, params); }
      catch (e) {
        const msg = e && e.message ? e.message : String(e);
        const p = document.createElement("p"); p.className = "error"; p.id = "view-error"; p.textContent = msg;
        view.replaceChildren(p);
      } finally { view.removeAttribute("aria-busy"); }
      if (!view.isConnected) return;            // (a later route has the page)
      window.dispatchEvent(new Event("mq-routed"));
      const h1 = view.querySelector("h1"); if (h1) document.title = h1.textContent + " - mqlite console";
      return;
    }
  }
  location.hash = "#/";
}
window.addEventListener("hashchange", dispatch);
