// The console's only way to the queue managers: mqweb's REST API (runCommand and runCommandJSON on
// /admin/action/qmgr/{qmgr}/mqsc, /login, /admin/qmgr) and the console API beside it
// (/ibmmq/console/api: the attribute table, messages with bodies, statistics and events).
import {CONSOLE, objectsUrl} from "./groups.js";

export {CONSOLE};
export const REST = "/ibmmq/rest/v2";
const CSRF = {"ibm-mq-rest-csrf-token": "console"};
const XHR = {"X-Requested-With": "XMLHttpRequest"};   // (a 401 then asks for no browser password dialog)

export class ApiError extends Error {
  constructor(status, body) {
    const e = (body && body.error && body.error[0]) || {};
    super(e.message || `HTTP ${status}`);
    this.status = status; this.body = body; this.reason = e.reasonCode;
  }
}

// A GET boot.js made while the modules loaded (the first page's), taken once.
function prefetched(url) {
  const boot = window.mqBoot;
  const p = boot && boot.early.get(url);
  if (p) boot.early.delete(url);
  return p;
}

export async function call(method, url, body, extra) {
  const early = method === "GET" && prefetched(url);
  if (early) {
    const [status, parsed] = await early;
    if (status >= 200 && status < 300) return parsed;
    if (status && status !== 401) throw new ApiError(status, parsed);
    // (asked before the user signed in, or not sent at all: asked again now)
  }
  const headers = Object.assign({}, XHR, method === "GET" ? {} : CSRF, extra || {});
  const init = {method, credentials: "same-origin", headers};
  if (body !== undefined) { headers["Content-Type"] = "application/json"; init.body = JSON.stringify(body); }
  const r = await fetch(url, init);
  if (r.status === 401 && !url.endsWith("/login")) { window.dispatchEvent(new Event("mq-logged-out")); }
  const text = await r.text();
  const parsed = text ? (() => { try { return JSON.parse(text); } catch (e) { return text; } })() : null;
  if (!r.ok) throw new ApiError(r.status, parsed);
  return parsed;
}

const q = encodeURIComponent;

export async function whoAmI() { return (await call("GET", CONSOLE + "/whoami")).user; }
export const logIn = (username, password) => call("POST", REST + "/login", {username, password});
export const logOut = () => call("DELETE", REST + "/login");
export const qmgrs = async () => (await call("GET", REST + "/admin/qmgr")).qmgr;

// runCommand: the MQSC text, answered with runmqsc's lines; ok when every response completed.
export async function mqsc(qmgr, command) {
  const r = await call("POST", `${REST}/admin/action/qmgr/${q(qmgr)}/mqsc`,
                       {type: "runCommand", parameters: {command}});
  const lines = (r.commandResponse || []).flatMap((c) => c.text || []);
  return {ok: r.overallCompletionCode === 0, lines, reason: r.overallReasonCode, raw: r};
}

// runCommandJSON's display: one parameters object per object shown ([] when none).
export async function display(qmgr, qualifier, name, extra) {
  const body = Object.assign({type: "runCommandJSON", command: "display", qualifier, name: name || "*",
                              responseParameters: ["all"]}, extra || {});
  const r = await call("POST", `${REST}/admin/action/qmgr/${q(qmgr)}/mqsc`, body);
  return (r.commandResponse || []).filter((c) => c.completionCode === 0 && c.parameters).map((c) => c.parameters);
}

let schemaCache = null;            // (the promise: asked for once however many views want it at once)
export function schema() {
  if (!schemaCache) schemaCache = call("GET", CONSOLE + "/schema").then((r) => r.types).catch((e) => { schemaCache = null; throw e; });
  return schemaCache;
}

export const browse = (qmgr, queue, limit) =>
  call("GET", `${CONSOLE}/messages/${q(qmgr)}/${q(queue)}?limit=${limit || 200}`);
export const putMessage = (qmgr, queue, message) => call("POST", `${CONSOLE}/messages/${q(qmgr)}/${q(queue)}`, message);
export const deleteMessage = (qmgr, queue, id) => call("DELETE", `${CONSOLE}/messages/${q(qmgr)}/${q(queue)}/${q(id)}`);
export const moveMessages = (qmgr, queue, to, messageIds, copy) =>
  call("POST", `${CONSOLE}/messages/${q(qmgr)}/${q(queue)}/move`, {to, messageIds, copy});
export const retryMessages = (qmgr, queue, messageIds) =>
  call("POST", `${CONSOLE}/messages/${q(qmgr)}/${q(queue)}/retry`, {messageIds});
export const activity = (qmgr) => call("GET", `${CONSOLE}/activity/${q(qmgr)}`);

// An MQSC value quoted as runmqsc reads it: in quotes, a quote doubled.
export function quoted(value) { return "'" + String(value).replace(/'/g, "''") + "'"; }

// The console API's display: each object's attributes by MQSC keyword, flags as true/false.
export async function objects(qmgr, qualifier, name, attrs) {
  const r = await call("GET", objectsUrl(qmgr, qualifier, name, attrs));
  return r.objects;
}

// An MQSC object name as runmqsc reads it: bare when it can be, else quoted.
export function named(name) { return /^[A-Z0-9._\/%]+$/.test(name) ? name : quoted(name); }
