/**
 * The NATS side of `pnpm bench nats`: the server (QUEUEBOX_BENCH_NATS_URL, default the local
 * one), a file-storage stream per scenario under a random name (deleted afterwards), its message
 * count, and the nats-server process for the CPU figures.
 */
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { connect, headers as natsHeaders } from 'nats';

export const NATS_URL = process.env.QUEUEBOX_BENCH_NATS_URL ?? 'nats://127.0.0.1:4222';

export async function openServer() {
  const connection = await connect({ servers: NATS_URL, name: 'queuebox bench' });
  const jsm = await connection.jetstreamManager();
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
 * plain nats client does; resolves with the first publish and last PubAck times. `onAcked` gets
 * the running count of settled publishes (acked or failed), as amqplib's `onConfirmed` does.
 */
export async function publishAcked(connection, { subject, count, inFlight, body, msgId, onAcked }) {
  const js = connection.jetstream();
  let sent = 0;
  let acked = 0;
  let failed = 0;
  const t0 = performance.timeOrigin + performance.now();
  const worker = async () => {
    while (sent < count) {
      const i = sent;
      sent += 1;
      const options = { headers: natsHeaders() };
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
