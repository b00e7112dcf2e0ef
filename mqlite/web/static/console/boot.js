// Runs as soon as it loads (an async module), before the rest of the console: asks who is signed
// in and, on a list page, for the list, so that those answers are on their way while the other
// modules load. api.js takes them (once each) instead of asking again.
import {CONSOLE, firstRequest} from "./groups.js";

const XHR = {"X-Requested-With": "XMLHttpRequest"};
const early = new Map();
function ask(url) {
  early.set(url, fetch(url, {credentials: "same-origin", headers: XHR})
    .then(async (r) => { const t = await r.text(); let body = null; try { body = t ? JSON.parse(t) : null; } catch (e) { body = t; } return [r.status, body]; })
    .catch(() => [0, null]));
}
ask(CONSOLE + "/whoami");
const first = firstRequest(location.hash);
if (first) ask(first);
window.mqBoot = {early};
