/**
 * The NATS side of `pnpm bench nats`: the server (QUEUEBOX_BENCH_NATS_URL, default the local
 * one), a file-storage stream per scenario under a random name (deleted afterwards), its message
 * count, and the nats-server process for the CPU figures.
 */
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect, createInbox, headers as natsHeaders } from '@nats-io/transport-node';

export const NATS_URL = process.env.QUEUEBOX_BENCH_NATS_URL ?? 'nats://127.0.0.1:4222';

export async function openServer() {
  const connection = await connect({ servers: NATS_URL, name: 'queuebox bench' });
  const jsm = await jetstreamManager(connection);
  return {
    connection,
    jsm,
    version: `nats-server ${connection.info?.version ?? '?'}`,
    /** A stream of its own on `<subject>.>`, deleted by `drop()`. */
    async scratch(label) {
      const token = `qb-bench-${label}-${randomBytes(3).toString('hex')}`;
      const stream = token.toUpperCase().replace(/[^A-Z0-9_-]/g, '_');
      await jsm.streams.add({ name: stream, subjects: [`${token}.>`] });
      return {
        stream,
        subject: `${token}.events`,
        count: async () => (await jsm.streams.info(stream)).state.messages,
        async drop() {
          await jsm.streams.delete(stream).catch(() => undefined);
        },
      };
    },
    async close() {
      await connection.close().catch(() => undefined);
    },
  };
}

/** The nats-server process when it runs on this machine, for the CPU table. */
export function serverPid() {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === 'nats-server') return Number(entry);
    } catch {
      // gone meanwhile
    }
  }
  return null;
}

/**
 * Publishes `count` messages to JetStream, keeping `inFlight` PubAcks outstanding at once, as a
 * plain nats.js client does; resolves with the first publish and last PubAck times. `onAcked` gets
 * the running count of settled publishes (acked or failed), as amqplib's `onConfirmed` does.
 */
export async function publishAcked(connection, { subject, count, inFlight, body, msgId, onAcked, lean = false }) {
  const js = lean ? leanJetStream(connection) : jetstream(connection);
  // The lean client carries what the spec puts on every outbox message (x-message-id, x-topic,
  // x-attempt) and a Nats-Msg-Id, as QueueBox does: the server's work per message is then the
  // same as for QueueBox's publishes, deduplication window included.
  const run = randomBytes(4).toString('hex');
  const wire = lean
    ? (i) => {
        const headers = natsHeaders();
        headers.append('x-message-id', `${run}-${i}`);
        headers.append('x-topic', 'bench.event');
        headers.append('x-attempt', '0');
        return { headers, msgID: `${run}-${i}` };
      }
    : null;
  let sent = 0;
  let acked = 0;
  let failed = 0;
  const t0 = performance.timeOrigin + performance.now();
  const worker = async () => {
    while (sent < count) {
      const i = sent;
      sent += 1;
      const options = wire ? wire(i) : { headers: natsHeaders() };
      if (msgId) options.msgID = msgId(i);
      try {
        await js.publish(subject, Buffer.from(body(i)), options);
      } catch {
        failed += 1;
      }
      acked += 1;
      onAcked?.(acked);
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  const t1 = performance.timeOrigin + performance.now();
  return { t0, t1, failed };
}

/**
 * The leanest JetStream publish a client can do with nats.js: one reply subscription, a token per
 * publish, the PubAck parsed by hand; no request object, timer or error per publish (QueueBox's
 * own way since issue 20, packages/nats/src/publisher/pub-ack-requests.ts). `lean-*` scenarios
 * use it, so the ceiling does not carry `js.publish`'s per-request cost. No timeout: a bench.
 */
function leanJetStream(connection) {
  const prefix = `${createInbox()}.`;
  const waiting = new Map();
  let next = 0;
  connection.subscribe(`${prefix}*`, {
    callback: (error, msg) => {
      if (error) return;
      const token = msg.subject.slice(prefix.length);
      const settle = waiting.get(token);
      if (!settle) return;
      waiting.delete(token);
      const ack = msg.data.length === 0 ? { error: 'no responders' } : JSON.parse(msg.string());
      settle(ack);
    },
  });
  return {
    async publish(subject, data, options) {
      const token = (next++).toString(36);
      const headers = options.headers;
      if (options.msgID) headers.set('Nats-Msg-Id', options.msgID);
      const ack = await new Promise((resolve) => {
        waiting.set(token, resolve);
        connection.publish(subject, data, { reply: prefix + token, headers });
      });
      if (ack.error) throw new Error(JSON.stringify(ack.error));
      return ack;
    },
  };
}
