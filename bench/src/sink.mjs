/**
 * The HTTP sink, run as its own process (child_process.fork): answers every POST with 200 at
 * once and records, per request, the receive time (body fully read) keyed by `X-Message-Id` (or
 * the header `reset` names), the `X-Message-Key` header and the payload's `seq` field. Per key, every receipt must carry a
 * higher `seq` than the previous receipt of that key (receipt order = insert order); a receipt
 * that does not is an order violation (a redelivery counts too). The parent talks to it over IPC:
 * {id, cmd} in, {id, result} out.
 */
import { createServer } from 'node:http';

const now = () => performance.timeOrigin + performance.now();
const SEQ = /"seq":\s*(\d+)/;

let state;
function reset(options = {}) {
  state = {
    recordTimes: options.recordTimes ?? true,
    // The webhook scenario keys receipts by the relayed inbox row's id (`x-inbox-id`).
    idHeader: options.idHeader ?? 'x-message-id',
    count: 0,
    first: null,
    last: null,
    times: new Map(),
    duplicates: 0,
    lastSeq: new Map(),
    violations: 0,
    violationSamples: [],
    keyed: 0,
    missingSeq: 0,
    non2xx: 0,
  };
}
reset();

const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const t = now();
    res.writeHead(200, { 'content-length': '0' });
    res.end();
    const s = state;
    s.count += 1;
    if (s.first === null) s.first = t;
    s.last = t;
    const id = req.headers[s.idHeader] ?? `anon-${s.count}`;
    if (s.times.has(id)) s.duplicates += 1;
    else s.times.set(id, s.recordTimes ? t : 0);
    const key = req.headers['x-message-key'];
    if (key !== undefined && key !== '') {
      s.keyed += 1;
      const match = SEQ.exec(Buffer.concat(chunks).toString('latin1'));
      if (match === null) {
        s.missingSeq += 1;
        return;
      }
      const seq = Number(match[1]);
      const previous = s.lastSeq.get(key);
      if (previous !== undefined && seq <= previous) {
        s.violations += 1;
        if (s.violationSamples.length < 10) s.violationSamples.push({ key, previous, seq });
      }
      if (previous === undefined || seq > previous) s.lastSeq.set(key, seq);
    }
  });
});
server.keepAliveTimeout = 120_000;
server.headersTimeout = 130_000;
server.requestTimeout = 0;

function summary() {
  const s = state;
  return {
    count: s.count,
    unique: s.times.size,
    duplicates: s.duplicates,
    first: s.first,
    last: s.last,
    keyed: s.keyed,
    keys: s.lastSeq.size,
    violations: s.violations,
    violationSamples: s.violationSamples,
    missingSeq: s.missingSeq,
  };
}

process.on('message', (message) => {
  const { id, cmd, args } = message;
  let result;
  if (cmd === 'reset') {
    reset(args);
    result = true;
  } else if (cmd === 'summary') {
    result = summary();
  } else if (cmd === 'times') {
    // Receive times of the ids asked for (null when not received).
    result = args.ids.map((messageId) => state.times.get(messageId) ?? null);
  } else if (cmd === 'close') {
    server.close();
    result = true;
    process.send({ id, result }, () => process.exit(0));
    return;
  } else {
    result = { error: `unknown command ${cmd}` };
  }
  process.send({ id, result });
});
process.on('disconnect', () => process.exit(0));

server.listen(0, '127.0.0.1', () => {
  process.send({ ready: true, port: server.address().port });
});
