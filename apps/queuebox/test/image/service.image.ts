import {
  createFreshDatabase,
  createNatsKit,
  createRabbitKit,
  freePort,
  requireService,
  startHttpSink,
  type FreshDatabase,
  type HttpSink,
  type NatsKit,
  type QueueCollector,
  type RabbitKit,
} from '@queuebox/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrations } from '@queuebox/postgres';
import { eventually } from '../service.js';
import {
  IMAGE,
  configFile,
  containerName,
  engine,
  engineOk,
  inspect,
  removeContainers,
  runHealthcheck,
  runOptions,
} from './engine.js';

const SUITE = 'the published image';
const pg = await requireService('postgres', SUITE);
const rabbit = await requireService('rabbitmq', SUITE);
const nats = await requireService('nats', SUITE);

/**
 * The image as a user runs it (docker/Dockerfile, built by `pnpm image:build`): the configuration
 * mounted at /etc/queuebox/queuebox.yml, the machine's PostgreSQL, RabbitMQ and NATS on the
 * host's network, the root file system read-only. Migrate twice, serve as a non-root user, answer
 * the health routes and the HEALTHCHECK, deliver an outbox row to HTTP, RabbitMQ and NATS, store
 * and relay a webhook, and drain on `stop`.
 */
describe.skipIf(!(pg.available && rabbit.available && nats.available))(SUITE, () => {
  let db: FreshDatabase;
  let sink: HttpSink;
  let kit: RabbitKit;
  let natsKit: NatsKit;
  let queue: QueueCollector;
  let stream: string;
  let config: string;
  let port: number;
  const started: string[] = [];
  const serving = containerName('serve');

  beforeAll(async () => {
    db = await createFreshDatabase(pg.available ? pg.url : '', 'qb_image');
    // Deliveries to /slow are answered after 2 s: `stop` finds them in flight.
    sink = await startHttpSink((request, response) => {
      setTimeout(() => response.end('ok'), request.url.startsWith('/slow') ? 2_000 : 0);
    });
    kit = await createRabbitKit(rabbit.available ? rabbit.url : '', 'qb-image');
    const exchange = await kit.exchange(kit.name('events'));
    queue = await kit.collect(await kit.queue(kit.name('q'), { exchange, patterns: ['#'] }));
    natsKit = createNatsKit(nats.available ? nats.url : '', 'qb-image');
    stream = await natsKit.stream(natsKit.name('EVENTS'), [natsKit.subject('events.>')]);
    port = await freePort();
    config = configFile(`
server:
  httpPort: ${port}
database:
  type: postgresql
  url: ${db.jdbcUrl}
  username: ${db.user}
  password: unused-by-trust-auth
outbox:
  pollIntervalMs: 100
  retryBaseDelayMs: 100
  shutdownTimeoutMs: 20000
inbox:
  relay:
    enabled: true
    pollIntervalMs: 100
destinations:
  sink:
    type: http
    baseUrl: ${sink.url}
    path: /hook
  slow:
    type: http
    baseUrl: ${sink.url}
    path: /slow
  amqp:
    type: rabbitmq
    url: ${rabbit.available ? rabbit.url : ''}
    exchange: ${exchange}
  jetstream:
    type: nats
    servers: ${nats.available ? nats.url : ''}
    subject: "${natsKit.subject('events')}.{{ topic }}"
routes:
  - topicPattern: "to-http.*"
    destination: sink
  - topicPattern: "hook.*"
    destination: sink
  - topicPattern: "slow.*"
    destination: slow
  - topicPattern: "to-amqp.*"
    destination: amqp
  - topicPattern: "to-nats.*"
    destination: jetstream
sources:
  hooks:
    path: /hooks
    idempotencyKeyPath: $.id
    eventTypePath: $.type
`);
  });

  afterAll(async () => {
    await removeContainers(started);
    await queue?.stop();
    await kit?.cleanup();
    await natsKit?.cleanup();
    await sink?.close();
    await db?.drop();
  });

  /** Serves the image detached on a read-only root file system, with `args` before the image. */
  const serve = (name: string, args: readonly string[] = []) =>
    engineOk([
      'run',
      '--detach',
      '--read-only',
      '--tmpfs',
      '/tmp',
      ...args,
      ...runOptions(config, name),
      IMAGE,
    ]);

  const migrate = async () => {
    const name = containerName(`migrate-${started.length}`);
    started.push(name);
    return engine(['run', '--rm', '--read-only', ...runOptions(config, name), IMAGE, 'migrate']);
  };

  it('applies the schema with `migrate`, and a second run applies nothing', async () => {
    const first = await migrate();
    expect(first.code, first.stdout + first.stderr).toBe(0);
    expect(first.stdout + first.stderr).toContain(`Applied ${migrations.length} migration(s)`);
    const [history] = await db.sql<{ count: string }[]>`
      SELECT count(*) FROM flyway_schema_history WHERE success`;
    expect(Number(history?.count)).toBe(migrations.length);
    const second = await migrate();
    expect(second.code).toBe(0);
    expect(second.stdout + second.stderr).toContain('no migration to apply');
  });

  it('serves as a non-root user on a read-only root file system, and answers its health routes and HEALTHCHECK', async () => {
    started.push(serving);
    await serve(serving);
    await eventually(
      async () => (await fetch(`http://127.0.0.1:${port}/health/ready`).catch(() => null))?.ok,
      60_000,
    );
    const live = await fetch(`http://127.0.0.1:${port}/health/live`);
    expect(live.status).toBe(200);
    // The service's own process (PID 1), not a shell started beside it.
    const status = await engineOk(['exec', serving, 'cat', '/proc/1/status']);
    const uid = /^Uid:\s+(\d+)/m.exec(status)?.[1];
    expect(uid).toBeDefined();
    expect(Number(uid)).not.toBe(0);
    expect(await engineOk(['exec', serving, 'id', '-un'])).toBe('queuebox\n');
    expect(await inspect<boolean>(serving, '.HostConfig.ReadonlyRootfs')).toBe(true);
    const health = await runHealthcheck(serving);
    expect(health.code, health.stdout + health.stderr).toBe(0);
  });

  it('delivers outbox rows inserted with SQL to an HTTP sink, a RabbitMQ queue and a NATS stream', async () => {
    await db.sql`
      INSERT INTO outbox (topic, payload) VALUES
        ('to-http.created', '{"to":"http"}'),
        ('to-amqp.created', '{"to":"amqp"}'),
        ('to-nats.created', '{"to":"nats"}')`;
    await eventually(async () => {
      const [row] = await db.sql<{ n: string }[]>`
        SELECT count(*) AS n FROM outbox WHERE topic LIKE 'to-%' AND state = 'sent'`;
      return Number(row?.n) === 3;
    }, 60_000);
    const hooks = sink.requests.filter((r) => r.url === '/hook');
    expect(hooks.map((r) => JSON.parse(r.body) as unknown)).toEqual([{ to: 'http' }]);
    const [amqp] = await queue.waitFor(1);
    expect(JSON.parse(amqp?.text ?? '')).toEqual({ to: 'amqp' });
    const stored = await natsKit.messages(stream);
    expect(stored.map((m) => [m.subject, JSON.parse(m.text) as unknown])).toEqual([
      [natsKit.subject('events.to-nats.created'), { to: 'nats' }],
    ]);
  });

  it('stores a webhook posted to the container and relays it', async () => {
    const response = await fetch(`http://127.0.0.1:${port}/inbox/hooks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ id: 'evt-image-1', type: 'hook.received', amount: 7 }),
    });
    expect(response.status).toBeLessThan(300);
    const [stored] = await db.sql<{ state: string }[]>`
      SELECT state FROM inbox WHERE source = 'hooks' AND idempotency_key = 'evt-image-1'`;
    expect(stored).toBeDefined();
    const relayed = await eventually(
      () => sink.requests.find((r) => r.body.includes('evt-image-1')),
      60_000,
    );
    expect(JSON.parse(relayed.body)).toEqual({
      id: 'evt-image-1',
      type: 'hook.received',
      amount: 7,
    });
    expect(relayed.headers['x-source']).toBe('hooks');
  });

  it('drains on `stop` (SIGTERM) within the grace period, exits 0 and leaves no row processing', async () => {
    await db.sql`
      INSERT INTO outbox (topic, payload)
      SELECT 'slow.drain', json_build_object('n', n)::jsonb FROM generate_series(1, 5) AS n`;
    await eventually(() => sink.requests.some((r) => r.url === '/slow'), 30_000);
    const before = performance.now();
    await engineOk(['stop', '--time', '90', serving], 120_000);
    const elapsedS = (performance.now() - before) / 1000;
    expect(await inspect<number>(serving, '.State.ExitCode')).toBe(0);
    expect(elapsedS).toBeLessThan(60);
    const [processing] = await db.sql<{ n: string }[]>`
      SELECT count(*) AS n FROM outbox WHERE state = 'processing'`;
    const logged = await engine(['logs', serving]);
    expect(Number(processing?.n), logged.stdout + logged.stderr).toBe(0);
    expect(logged.stdout + logged.stderr).toContain('Shutdown complete');
  });

  it('passes its HEALTHCHECK on a moved data port and on a management port', async () => {
    const dataPort = await freePort();
    const managementPort = await freePort();
    const name = containerName('ports');
    started.push(name);
    await serve(name, [
      '-e',
      `QUEUEBOX_SERVER_HTTPPORT=${dataPort}`,
      '-e',
      `QUEUEBOX_SERVER_MANAGEMENTPORT=${managementPort}`,
    ]);
    await eventually(
      async () =>
        (await fetch(`http://127.0.0.1:${managementPort}/health/ready`).catch(() => null))?.ok,
      60_000,
    );
    const health = await runHealthcheck(name);
    expect(health.code, health.stdout + health.stderr).toBe(0);
    expect(health.stdout + health.stderr).not.toContain('unhealthy');
    await engineOk(['stop', '--time', '90', name], 120_000);
  });
});
