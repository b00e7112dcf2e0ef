// The object groups the console lists, and the list request a group's page makes first: shared by
// objects.js and boot.js (which asks for it while the rest of the console loads).
export const CHANNEL_TYPES = ["SDR", "SVR", "RCVR", "RQSTR", "CLNTCONN", "SVRCONN", "CLUSSDR", "CLUSRCVR", "AMQP", "MQTT"];
export const GROUPS = {
  queues: {title: "Queues", qualifier: "queue", key: "QUEUE", typeKey: "TYPE", types: ["QLOCAL", "QMODEL", "QALIAS", "QREMOTE"],
           columns: ["QUEUE", "TYPE", "CURDEPTH", "MAXDEPTH", "PUT", "GET", "DESCR"]},
  channels: {title: "Channels", qualifier: "channel", key: "CHANNEL", typeKey: "CHLTYPE", types: CHANNEL_TYPES,
             status: "chstatus", columns: ["CHANNEL", "CHLTYPE", "STATUS", "CONNAME", "XMITQ", "DESCR"]},
  topics: {title: "Topics", qualifier: "topic", key: "TOPIC", types: ["TOPIC"], columns: ["TOPIC", "TOPICSTR", "TYPE", "DESCR"]},
  subscriptions: {title: "Subscriptions", qualifier: "sub", key: "SUB", types: ["SUB"],
                  columns: ["SUB", "TOPICSTR", "DEST", "DESTCLAS", "SUBTYPE", "DURABLE"]},
  listeners: {title: "Listeners", qualifier: "listener", key: "LISTENER", types: ["LISTENER"], status: "lsstatus",
              columns: ["LISTENER", "TRPTYPE", "PORT", "CONTROL", "STATUS", "DESCR"]},
  services: {title: "Services", qualifier: "service", key: "SERVICE", types: ["SERVICE"], status: "svstatus",
             columns: ["SERVICE", "SERVTYPE", "CONTROL", "STATUS", "STARTCMD", "DESCR"]},
  processes: {title: "Processes", qualifier: "process", key: "PROCESS", types: ["PROCESS"],
              columns: ["PROCESS", "APPLICID", "APPLTYPE", "DESCR"]},
  namelists: {title: "Namelists", qualifier: "namelist", key: "NAMELIST", types: ["NAMELIST"],
              columns: ["NAMELIST", "NAMCOUNT", "NAMES", "DESCR"]},
  authinfo: {title: "Authentication information", qualifier: "authinfo", key: "AUTHINFO", types: ["AUTHINFO"],
             typeKey: "AUTHTYPE", columns: ["AUTHINFO", "AUTHTYPE", "DESCR"]},
  comminfo: {title: "Communication information", qualifier: "comminfo", key: "COMMINFO", types: ["COMMINFO"],
             columns: ["COMMINFO", "GRPADDR", "PORT", "DESCR"]},
};

export const CONSOLE = "/ibmmq/console/api";
const q = encodeURIComponent;

// The columns a table of `storage` shows: the ones picked before, else `columns`.
export function savedColumns(storage, columns) {
  return (storage && JSON.parse(localStorage.getItem("cols:" + storage) || "null")) || columns;
}

export function objectsUrl(qmgr, qualifier, name, attrs) {
  const only = attrs && attrs.length ? `&attrs=${q(attrs.join(","))}` : "";
  return `${CONSOLE}/objects/${q(qmgr)}/${q(qualifier)}?name=${q(name || "*")}${only}`;
}

// The first request of a list page (#/qm/{qmgr}/{group}), or null for another page.
export function firstRequest(hash) {
  const m = /^#\/qm\/([^/?]+)\/([a-z]+)$/.exec(hash);
  const g = m && GROUPS[m[2]];
  return g ? objectsUrl(decodeURIComponent(m[1]), g.qualifier, "*", savedColumns(m[2], g.columns)) : null;
}
