// A rhea (Node.js) client for tests/amqp/test_amqp_rhea.py. It prints one JSON line for each
// message it receives or outcome it gets, and "done" at the end; exits non-zero on an error.
//   node rhea_client.js send    <port> <user> <password> <address> <n>     (queue capability)
//   node rhea_client.js receive <port> <user> <password> <address> <n> [topic]
'use strict';
const rhea = require('rhea');
const [mode, port, username, password, address, count, kind] = process.argv.slice(2);
const n = parseInt(count, 10);
const caps = kind === 'topic' ? ['topic'] : ['queue'];
const container = rhea.create_container({ id: 'rhea-' + mode + '-' + process.pid });
let outcomes = 0;
let received = 0;
let sent = 0;
const out = (o) => process.stdout.write(JSON.stringify(o) + '\n');
const timer = setTimeout(() => { out({ error: 'timed out' }); process.exit(3); }, 20000);

container.on('connection_open', (ctx) => {
  if (mode === 'send') {
    ctx.connection.open_sender({ target: { address, capabilities: caps } });
  } else {
    ctx.connection.open_receiver({ source: { address, capabilities: caps }, autoaccept: true, credit_window: 10 });
  }
});
container.on('receiver_open', () => out({ ready: true }));
container.on('sendable', (ctx) => {
  while (ctx.sender.sendable() && sent < n) {
    sent += 1;
    ctx.sender.send({ body: 'rhea ' + sent, durable: true, priority: 6, ttl: 600000,
                      application_properties: { seq: sent, from: 'rhea' } });
  }
});
container.on('accepted', () => { outcomes += 1; out({ outcome: 'accepted' }); finish(outcomes); });
container.on('rejected', (ctx) => { outcomes += 1; out({ outcome: 'rejected', error: JSON.stringify(ctx.delivery.remote_state.error) }); finish(outcomes); });
container.on('message', (ctx) => {
  const m = ctx.message;
  received += 1;
  out({ body: typeof m.body === 'string' ? m.body : Buffer.from(m.body.content || m.body).toString(),
        durable: !!m.durable, priority: m.priority, subject: m.subject || null,
        properties: m.application_properties || {} });
  finish(received);
});
container.on('error', (e) => { out({ error: String(e) }); process.exit(2); });
container.on('disconnected', (ctx) => { if (ctx.error) { out({ error: String(ctx.error) }); process.exit(2); } });
container.on('sender_close', (ctx) => { out({ error: JSON.stringify(ctx.sender.error) }); process.exit(2); });
container.on('receiver_close', (ctx) => { out({ error: JSON.stringify(ctx.receiver.error) }); process.exit(2); });

function finish(k) {
  if (k === n) {
    clearTimeout(timer);
    out({ done: true });
    connection.close();          // (its dispositions go first; the queue manager's close ends it)
  }
}
container.on('connection_close', () => process.exit(0));

const connection = container.connect({ host: '127.0.0.1', port: parseInt(port, 10), username, password, reconnect: false });
