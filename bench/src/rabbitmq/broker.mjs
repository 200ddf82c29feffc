/**
 * The RabbitMQ side of `pnpm bench rabbitmq`: the broker (QUEUEBOX_BENCH_RABBITMQ_URL, default
 * the local one with guest/guest), a durable topic exchange and a bound durable queue per
 * scenario under a random prefix (deleted afterwards), queue depth polling, and the broker's
 * process for the CPU figures.
 */
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import amqp from 'amqplib';

export const RABBITMQ_URL =
  process.env.QUEUEBOX_BENCH_RABBITMQ_URL ?? 'amqp://guest:guest@127.0.0.1:5672';

/** The URL with its password masked, for the printout. */
export const maskedUrl = (url = RABBITMQ_URL) => url.replace(/\/\/([^:/@]+):[^@]*@/, '//$1:***@');

export async function openBroker() {
  const connection = await amqp.connect(RABBITMQ_URL);
  connection.on('error', () => undefined);
  const channel = await connection.createChannel();
  channel.on('error', () => undefined);
  const server = connection.connection.serverProperties ?? {};
  return {
    connection,
    channel,
    version: `${server.product ?? 'RabbitMQ'} ${server.version ?? '?'}`,
    /** A durable topic exchange and a durable queue bound to it by `#`, or a lone queue. */
    async scratch(label, { exchange = true } = {}) {
      const base = `qb-bench.${label}.${randomBytes(3).toString('hex')}`;
      const queue = `${base}.q`;
      await channel.assertQueue(queue, { durable: true });
      let name = null;
      if (exchange) {
        name = `${base}.x`;
        await channel.assertExchange(name, 'topic', { durable: true });
        await channel.bindQueue(queue, name, '#');
      }
      return {
        exchange: name,
        queue,
        depth: async () => (await channel.checkQueue(queue)).messageCount,
        async drop() {
          await channel.deleteQueue(queue).catch(() => undefined);
          if (name !== null) await channel.deleteExchange(name).catch(() => undefined);
        },
      };
    },
    async close() {
      await connection.close().catch(() => undefined);
    },
  };
}

/** The broker's Erlang VM (beam.smp) when it runs on this machine, for the CPU table. */
export function brokerPid() {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() !== 'beam.smp') continue;
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes('rabbit')) return Number(entry);
    } catch {
      // gone meanwhile
    }
  }
  return null;
}

/**
 * Publishes `count` messages with confirms, keeping `inFlight` unconfirmed at once, as a plain
 * amqplib client does; resolves with the first publish and last confirm times.
 */
export async function publishConfirmed(
  connection,
  { exchange, routingKey, queue, count, inFlight, body, messageId, onConfirmed },
) {
  const channel = await connection.createConfirmChannel();
  channel.on('error', () => undefined);
  let sent = 0;
  let confirmed = 0;
  let failed = 0;
  const t0 = performance.timeOrigin + performance.now();
  await new Promise((resolve) => {
    const pump = () => {
      while (sent < count && sent - confirmed < inFlight) {
        const i = sent;
        sent += 1;
        const options = { persistent: true, contentType: 'application/json' };
        if (messageId) options.messageId = messageId(i);
        const done = (error) => {
          confirmed += 1;
          if (error) failed += 1;
          onConfirmed?.(confirmed);
          if (confirmed === count) resolve();
          else pump();
        };
        if (queue) channel.sendToQueue(queue, Buffer.from(body(i)), options, done);
        else channel.publish(exchange, routingKey, Buffer.from(body(i)), options, done);
      }
    };
    pump();
  });
  const t1 = performance.timeOrigin + performance.now();
  await channel.close().catch(() => undefined);
  return { t0, t1, failed };
}
