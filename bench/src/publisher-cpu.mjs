/**
 * CPU of a broker publisher alone, per message: `count` publishes of 1 KiB payloads read as bytes
 * (as the PostgreSQL store hands them over), `inFlight` at once, through the publisher of the tree
 * at `--tree` (its packages' dist), with requests shaped as the poller makes them (a claim whose
 * AbortSignal is made only when read, and its cancel listener). No database: what is measured is
 * the publisher and its client, which a loaded machine disturbs far less than a rate.
 *
 *   node bench/src/publisher-cpu.mjs --broker rabbitmq|nats [--tree /work/main] [--count 20000]
 *        [--in-flight 64] [--rounds 3]
 *
 * Prints, per round, µs of this process's CPU (user + system) per message and the wall rate.
 */
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Socket } from 'node:net';
import { parseArgs } from 'node:util';
import amqp from 'amqplib';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { claimedOutboxRow } from '@queuebox/testing';
import { REPO_DIR } from './lib/util.mjs';

const { values } = parseArgs({
  options: {
    broker: { type: 'string', default: 'rabbitmq' },
    tree: { type: 'string', default: REPO_DIR },
    count: { type: 'string', default: '20000' },
    'in-flight': { type: 'string', default: '64' },
    rounds: { type: 'string', default: '3' },
  },
});
const count = Number(values.count);
const inFlight = Number(values['in-flight']);
const dist = (pkg) => pathToFileURL(resolve(values.tree, 'packages', pkg, 'dist/index.js')).href;
const core = await import(dist('core'));
const run = randomBytes(3).toString('hex');
const body = Buffer.from(JSON.stringify({ id: run, data: 'x'.repeat(1000) }));

/** The poller's request: its claim's signal made on first read, and one cancel listener. */
class Request {
  #controller = null;
  #listener = null;
  constructor(message, address, routingKey) {
    this.message = message;
    this.destination = 'd';
    this.payload = core.JsonPayload.fromBytes(Buffer.from(body));
    this.address = address;
    this.routingKey = routingKey;
  }
  get signal() {
    return (this.#controller ??= new AbortController()).signal;
  }
  watchCancel(listener) {
    this.#listener = listener;
    return true;
  }
  unwatchCancel(listener) {
    if (this.#listener === listener) this.#listener = null;
  }
}

const message = (i) =>
  claimedOutboxRow({ id: `${run}-${i}`, topic: 'bench.event', sequence: BigInt(i) });

async function setup() {
  if (values.broker === 'rabbitmq') {
    const { createRabbitPublisher } = await import(dist('rabbitmq'));
    const url = 'amqp://guest:guest@127.0.0.1:5672';
    const exchange = `qb-pubcpu-${run}`;
    const admin = await amqp.connect(url);
    const ch = await admin.createChannel();
    await ch.assertExchange(exchange, 'topic', { durable: true });
    const { queue } = await ch.assertQueue(`qb-pubcpu-${run}`, { durable: true });
    await ch.bindQueue(queue, exchange, '#');
    const publisher = createRabbitPublisher(
      { destinations: { d: { type: 'rabbitmq', url, exchange, exchangeFrom: null, exchangeType: 'topic', routingKeyTemplate: '{{ topic }}', deliveryMode: 'persistent', headers: {}, transform: null } } },
      { logger: core.silentLogger },
    );
    return {
      publisher,
      request: (i) => new Request(message(i), exchange, 'bench.event'),
      async between() {
        await ch.purgeQueue(queue);
      },
      async close() {
        await publisher.close();
        await ch.deleteQueue(queue);
        await ch.deleteExchange(exchange);
        await admin.close();
      },
    };
  }
  const { createNatsPublisher } = await import(dist('nats'));
  const nc = await connect({ servers: 'nats://127.0.0.1:4222' });
  const jsm = await jetstreamManager(nc);
  const stream = `QB_PUBCPU_${run}`;
  const subject = `qb-pubcpu-${run}.events`;
  await jsm.streams.add({ name: stream, subjects: [`qb-pubcpu-${run}.>`] });
  const publisher = createNatsPublisher(
    { destinations: { d: { type: 'nats', servers: 'nats://127.0.0.1:4222', subject, subjectFrom: null, jetStream: true, timeoutMs: 30_000, username: null, password: null, token: null, headers: {}, transform: null } } },
    { logger: core.silentLogger },
  );
  return {
    publisher,
    request: (i) => new Request(message(i), subject, null),
    async between() {
      await jsm.streams.purge(stream);
    },
    async close() {
      await publisher.close();
      await jsm.streams.delete(stream);
      await nc.close();
    },
  };
}

// Socket writes per message: how well the client's writes are batched.
let writes = 0;
const write = Socket.prototype.write;
Socket.prototype.write = function (...args) {
  writes++;
  return write.apply(this, args);
};

const target = await setup();
let offset = 0;
async function round() {
  let next = 0;
  let failed = 0;
  const base = offset;
  offset += count;
  const worker = async () => {
    while (next < count) {
      const i = base + next++;
      const outcome = await target.publisher.publish(target.request(i));
      if (!outcome.ok) failed++;
    }
  };
  const writes0 = writes;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(Array.from({ length: inFlight }, worker));
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  return {
    usPerMessage: (cpu.user + cpu.system) / count,
    rate: Math.round(count / seconds),
    writesPerMessage: Math.round(((writes - writes0) / count) * 100) / 100,
    failed,
  };
}

await round(); // warm-up: connection, exchange, JIT
await target.between();
for (let r = 0; r < Number(values.rounds); r++) {
  const result = await round();
  await target.between();
  console.log(JSON.stringify({ broker: values.broker, tree: values.tree, ...result, usPerMessage: Math.round(result.usPerMessage * 10) / 10 }));
}
await target.close();
