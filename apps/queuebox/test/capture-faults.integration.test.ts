import {
  type FaultProxy,
  type FreshDatabase,
  type HttpSink,
  recordingLogger,
  requirePostgresLogical,
  startFaultProxy,
  startHttpSink,
} from '@queuebox/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  captureDatabase,
  captureUp,
  captureYaml,
  health,
  insertOutbox,
  uniqueSlot,
} from './capture-support.js';
import { eventually, startTestService } from './service.js';

const pg = await requirePostgresLogical('app: capture faults');
const pgUrl = pg.available ? pg.url : '';

type Service = Awaited<ReturnType<typeof startTestService>>;
const countOf = (sink: HttpSink, id: string) =>
  sink.requests.filter((r) => r.headers['x-message-id'] === id).length;

describe.skipIf(!pg.available)('app: a cut replication connection', () => {
  let db: FreshDatabase;
  let sink: HttpSink;
  let proxy: FaultProxy;
  let service: Service;
  const logger = recordingLogger();

  beforeAll(async () => {
    db = await captureDatabase(pgUrl);
    sink = await startHttpSink();
    // Only the replication connection goes through the proxy; the pool and the lock do not.
    proxy = await startFaultProxy({ target: { host: db.host, port: db.port } });
    service = await startTestService(
      db,
      captureYaml({
        sinkUrl: sink.url,
        slot: uniqueSlot('cut'),
        reconciliationIntervalMs: 10_000,
      }),
      {
        QUEUEBOX_OUTBOX_CAPTURE_CONNECTION_HOSTNAME: proxy.host,
        QUEUEBOX_OUTBOX_CAPTURE_CONNECTION_PORT: String(proxy.port),
      },
      logger,
    );
    await eventually(() => captureUp(service.base), 20_000);
  });
  afterAll(async () => {
    await service?.stop();
    await proxy?.close();
    await sink?.close();
    await db?.drop();
  });

  it('goes on delivering through SQL while cut, reconnects, and wakes on inserts again', async () => {
    proxy.refuse();
    proxy.cut();
    await eventually(async () => !(await captureUp(service.base)), 10_000);
    // Advisory: capture being down never makes readiness 503.
    expect((await health(service.base)).code).toBe(200);
    const during = [await insertOutbox(db, 'cut.a'), await insertOutbox(db, 'cut.b')];
    await eventually(() => during.every((id) => countOf(sink, id) === 1), 20_000);
    expect(
      logger
        .messages('warn')
        .some((l) => l.startsWith('Capture interrupted; SQL reconciliation continues. Reason: ')),
    ).toBe(true);

    proxy.restore();
    await eventually(() => captureUp(service.base), 40_000);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const inserted = performance.now();
    const after = await insertOutbox(db, 'cut.after');
    await eventually(() => countOf(sink, after) === 1, 5_000);
    expect(performance.now() - inserted).toBeLessThan(3_000);
  });
});

describe.skipIf(!pg.available)('app: a second owner of the identity', () => {
  let db: FreshDatabase;
  let sink: HttpSink;
  const services: Service[] = [];
  const second = recordingLogger();

  beforeAll(async () => {
    db = await captureDatabase(pgUrl);
    sink = await startHttpSink();
    const yaml = captureYaml({
      sinkUrl: sink.url,
      slot: uniqueSlot('owner'),
      reconciliationIntervalMs: 1_000,
    });
    services.push(await startTestService(db, yaml));
    await eventually(() => captureUp(services[0]!.base), 20_000);
    services.push(await startTestService(db, yaml, {}, second));
  });
  afterAll(async () => {
    for (const service of services) await service.stop();
    await sink?.close();
    await db?.drop();
  });

  it('logs the reference message, stays down (advisory) and delivers through SQL beside the owner', async () => {
    const text = 'Capture identity already has an active owner. SQL reconciliation continues.';
    await eventually(() => second.messages('warn').includes(text), 10_000);
    const [first, other] = services;
    const { code, body } = await health(other!.base);
    expect(code).toBe(200);
    expect(body.components['outbox-capture']).toEqual({ status: 'down' });
    expect(await captureUp(first!.base)).toBe(true);
    // The second replica's poller still claims; every row goes out exactly once.
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) ids.push(await insertOutbox(db, 'owner.row'));
    await eventually(() => ids.every((id) => countOf(sink, id) === 1), 10_000);
    expect(second.messages('warn').filter((l) => l === text)).toHaveLength(1);
  });
});

describe.skipIf(!pg.available)('app: capture without its publication', () => {
  let db: FreshDatabase;
  let sink: HttpSink;
  let service: Service;
  const logger = recordingLogger();

  beforeAll(async () => {
    db = await captureDatabase(pgUrl, { publication: false });
    sink = await startHttpSink();
    service = await startTestService(
      db,
      captureYaml({
        sinkUrl: sink.url,
        slot: uniqueSlot('nopub'),
        reconciliationIntervalMs: 1_000,
      }),
      {},
      logger,
    );
  });
  afterAll(async () => {
    await service?.stop();
    await sink?.close();
    await db?.drop();
  });

  it('logs the reference error, starts and delivers by polling, and captures once the publication exists', async () => {
    await eventually(
      () =>
        logger
          .messages('warn')
          .some(
            (l) =>
              l.startsWith('Capture interrupted; SQL reconciliation continues. Reason: ') &&
              l.endsWith(
                'The publication queuebox_outbox does not exist. Create it before you enable capture.',
              ),
          ),
      10_000,
    );
    const { code, body } = await health(service.base);
    expect(code).toBe(200);
    expect(body.components['outbox-capture']).toEqual({ status: 'down' });
    const id = await insertOutbox(db, 'nopub.row');
    await eventually(() => countOf(sink, id) === 1, 10_000);

    await db.sql`CREATE PUBLICATION queuebox_outbox FOR TABLE outbox`;
    await eventually(() => captureUp(service.base), 40_000);
  });
});
