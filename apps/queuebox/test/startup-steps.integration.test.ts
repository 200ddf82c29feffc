import { createServer, type AddressInfo } from 'node:net';
import { freePort, requireService, startFaultProxy, startHttpSink } from '@queuebox/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCountingDatabase, type CountingDatabase } from './counting-database.js';
import {
  assertBuilt,
  runQueueBox,
  startQueueBox,
  terminateQueueBox,
  writeConfig,
  type ProcessResult,
} from './process.js';
import { commandsOnDatabase } from './process-suite.js';
import { eventually } from './service.js';
import { RELAY_OFF, UNREACHABLE_SINK, sinkRoute } from './yaml-pieces.js';

const pg = await requireService('postgres', 'app: startup steps (spec §17.1)');
const rabbit = await requireService('rabbitmq', 'app: startup steps (spec §17.1)');

const PASSWORD = 'hunter2-startup-secret';
/** The ERROR records of a plain-text log, without their timestamp and logger prefix. */
const errorLines = (result: ProcessResult) =>
  result.stdout
    .split('\n')
    .filter((line) => line.includes(' ERROR '))
    .map((line) => line.replace(/^.* - /, ''));

/**
 * Spec §17.1: each step of 2-8 is wrapped as "QueueBox could not <step>. Reason: <sanitized>",
 * the checks that need no database (steps 2-4) stop the start before the pool opens (step 5),
 * and a failure in step 10 runs the shutdown sequence and exits with one sanitized line. Each
 * case runs the built app as a real process.
 */
describe('startup steps that stop before the database', () => {
  let database: CountingDatabase;
  beforeAll(async () => {
    assertBuilt();
    database = await startCountingDatabase();
  });
  afterAll(async () => {
    await database?.close();
  });

  const start = async (yaml: string) =>
    runQueueBox([], {
      QUEUEBOX_CONFIG_FILE: writeConfig(yaml),
      QUEUEBOX_DATABASE_URL: database.url,
      QUEUEBOX_DATABASE_USERNAME: 'postgres',
      QUEUEBOX_DATABASE_PASSWORD: PASSWORD,
      QUEUEBOX_DATABASE_STARTUPTIMEOUTMS: '1000',
      QUEUEBOX_SERVER_HTTPPORT: String(await freePort()),
    });

  it.each([
    [
      'a destination transform',
      `
destinations:
  sink:
    type: http
    baseUrl: http://127.0.0.1:9
    transform:
      expression: "$$$("
routes:
  - topicPattern: "**"
    destination: sink
`,
      'QueueBox could not build the destinations. Reason: destinations.sink.transform.expression: the JSONata expression does not compile',
    ],
    [
      'an HTTP source transform',
      `${UNREACHABLE_SINK}
sources:
  orders:
    type: http
    path: /orders
    idempotencyKeyPath: $.id
    eventTypePath: $.type
    transform:
      expression: "$$$("
`,
      'QueueBox could not compile the sources. Reason: sources.orders.transform.expression: the JSONata expression does not compile',
    ],
    [
      'a RabbitMQ source expression',
      `${UNREACHABLE_SINK}
sources:
  rabbit:
    type: rabbitmq
    queueName: orders
    connectionUrl: amqp://guest:guest@127.0.0.1:5672
    eventTypeExpression: "$$$("
`,
      'QueueBox could not compile the sources. Reason: sources.rabbit.eventTypeExpression: the JSONata expression does not compile',
    ],
  ])(
    'stops on %s that does not compile before it touches the database',
    async (_what, yaml, expected) => {
      const before = database.count();
      const result = await start(yaml);
      expect(result.code).toBe(1);
      const errors = errorLines(result);
      expect(errors).toHaveLength(1);
      expect(errors[0]).toContain(expected);
      // Step 3 runs before step 5: the database was never asked.
      expect(database.count()).toBe(before);
      expect(result.stdout).not.toContain('is listening on port');
    },
  );

  it('stops on an AMQP URI that is not valid without printing it, before it touches the database', async () => {
    const before = database.count();
    const result = await start(`${UNREACHABLE_SINK}
sources:
  rabbit:
    type: rabbitmq
    queueName: orders
    connectionUrl: "amqp://guest:${PASSWORD}@[::1:5672/"
`);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(
      'QueueBox could not load the configuration. Reason: The configuration has 1 error.',
    );
    expect(result.stdout).toContain(
      'sources.rabbit.connectionUrl: is not a valid AMQP URI (amqp://host or amqps://host); the value is not printed because it can hold a password',
    );
    expect(result.stdout + result.stderr).not.toContain(PASSWORD);
    expect(result.stdout + result.stderr).not.toContain('[::1:5672');
    expect(database.count()).toBe(before);
  });
});

describe.skipIf(!pg.available)('startup steps on a real database', () => {
  const h = commandsOnDatabase(pg.available ? pg.url : '', UNREACHABLE_SINK, {
    prefix: 'qb_startup',
    password: PASSWORD,
  });
  beforeAll(async () => {
    expect((await runQueueBox(['migrate'], h.env)).code).toBe(0);
  });

  it('stops at the schema guard (step 7) on an inbox without headers, naming the ALTER TABLE', async () => {
    await h.db.sql`ALTER TABLE inbox DROP COLUMN headers`;
    try {
      const result = await runQueueBox([], {
        ...h.env,
        QUEUEBOX_DATABASE_MIGRATE: 'false',
        QUEUEBOX_SERVER_HTTPPORT: String(await freePort()),
      });
      expect(result.code).toBe(1);
      expect(errorLines(result)).toEqual([
        `QueueBox could not check the database schema. Reason: QueueBoxError: The inbox table 'inbox' has no column 'headers'. Add it with: ALTER TABLE "inbox" ADD COLUMN "headers" JSONB NOT NULL DEFAULT '{}';`,
      ]);
      expect(result.stdout).not.toContain('is listening on port');
    } finally {
      await h.db.sql`ALTER TABLE inbox ADD COLUMN headers JSONB NOT NULL DEFAULT '{}'`;
    }
  });

  it('runs the shutdown sequence and exits 1 with one sanitized line when a step of 10 fails (the HTTP port is taken)', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '0.0.0.0', resolve));
    const { port } = taken.address() as AddressInfo;
    try {
      const result = await runQueueBox([], { ...h.env, QUEUEBOX_SERVER_HTTPPORT: String(port) });
      expect(result.code).toBe(1);
      const errors = errorLines(result);
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatch(/^QueueBox could not start the HTTP server\. Reason: .*EADDRINUSE/);
      // No cause chain, no stack: one record of one line.
      expect(result.stdout + result.stderr).not.toMatch(/^\s+at /m);
      // The services step 10 had started were stopped by the whole §17.2 sequence first.
      const out = result.stdout;
      const down = out.indexOf('Shutting down QueueBox...');
      const complete = out.indexOf('Shutdown complete');
      expect(down).toBeGreaterThan(-1);
      expect(complete).toBeGreaterThan(down);
      expect(out.indexOf('QueueBox could not start the HTTP server')).toBeGreaterThan(complete);
      expect(out).not.toContain(PASSWORD);
    } finally {
      await new Promise<void>((resolve) => taken.close(() => resolve()));
    }
  });

  it.skipIf(!rabbit.available)(
    'runs the shutdown sequence and exits 0 on a SIGTERM that lands while step 10 is still starting (the hook of step 9)',
    async () => {
      // The RabbitMQ source's first connection crawls through a slow proxy, so step 10 (the
      // poller already running, the source still connecting, the HTTP server not yet
      // listening) lasts seconds; the poller delivering a row shows step 10 has begun.
      const broker = new URL(rabbit.available ? rabbit.url : 'amqp://127.0.0.1:5672');
      const proxy = await startFaultProxy({
        target: { host: broker.hostname, port: Number(broker.port || 5672) },
      });
      proxy.setLatency(400);
      const sink = await startHttpSink();
      await h.db.sql`INSERT INTO outbox (topic, payload) VALUES ('order.placed', '{}')`;
      broker.host = `${proxy.host}:${proxy.port}`;
      const qb = startQueueBox([], {
        ...h.env,
        QUEUEBOX_CONFIG_FILE: writeConfig(`
outbox:
  pollIntervalMs: 50
  shutdownTimeoutMs: 2000
${RELAY_OFF}${sinkRoute(sink.url)}sources:
  slow:
    type: rabbitmq
    queueName: qb-startup-${Date.now()}
    declareQueue: true
    connectionUrl: ${broker.href}
`),
        QUEUEBOX_SERVER_HTTPPORT: String(await freePort()),
      });
      try {
        await eventually(() => sink.requests.length > 0, 20_000);
        expect(qb.output()).not.toContain('is listening on port');
        const result = await terminateQueueBox(qb, 30_000);
        expect(result.code).toBe(0);
        expect(result.stdout).toContain('Shutting down QueueBox...');
        expect(result.stdout).toContain('Shutdown complete');
        expect(errorLines(result)).toEqual([]);
        const [row] = await h.db.sql<{ state: string }[]>`SELECT state FROM outbox`;
        expect(row?.state).toBe('sent');
      } finally {
        if (qb.child.exitCode === null) qb.child.kill('SIGKILL');
        await sink.close();
        await proxy.close();
        await h.db.sql`DELETE FROM outbox`;
      }
    },
    45_000,
  );
});
