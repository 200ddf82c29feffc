import {
  createFreshDatabase,
  requireService,
  startFaultProxy,
  startHttpSink,
  type FaultProxy,
  type FreshDatabase,
  type HttpSink,
} from '@queuebox/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startTestService } from './service.js';

const SUITE = 'app: the outbox rides out a cut database connection';
const pg = await requireService('postgres', SUITE);

/**
 * The real service reaches PostgreSQL only through the fault proxy, so the test can cut its
 * connections (RST both ways) and refuse new ones without touching the shared server. Rows
 * committed before and during the outage, including rows whose publish was answered while the
 * database was gone (their `sent` mark failed), all reach the real HTTP sink after the restore:
 * the same process, no restart.
 */
describe.skipIf(!pg.available)(SUITE, () => {
  let db: FreshDatabase;
  let proxy: FaultProxy;
  let sink: HttpSink;
  let service: Awaited<ReturnType<typeof startTestService>>;
  let releaseHeld: () => void = () => undefined;
  const held = new Promise<void>((resolve) => {
    releaseHeld = resolve;
  });
  let holding = true;

  beforeAll(async () => {
    if (!pg.available) return;
    db = await createFreshDatabase(pg.url, 'qb_outage');
    proxy = await startFaultProxy({ target: { host: db.host, port: db.port } });
    sink = await startHttpSink(async (request, response) => {
      // The first publishes stay unanswered until the database is cut, so their sent marks fail.
      if (holding) await held;
      response.writeHead(200).end('ok');
    });
    service = await startTestService(
      { jdbcUrl: `jdbc:postgresql://${proxy.host}:${proxy.port}/${db.name}`, user: db.user },
      `
database:
  migrate: true
  connectionTimeoutMs: 2000
outbox:
  pollIntervalMs: 50
  claimTimeoutMs: 2000
  retryBaseDelayMs: 100
inbox:
  relay:
    enabled: false
destinations:
  sink:
    type: http
    baseUrl: ${sink.url}
    path: /events
routes:
  - topicPattern: "outage.*"
    destination: sink
`,
    );
  });

  afterAll(async () => {
    releaseHeld();
    await service?.stop();
    await sink?.close();
    await proxy?.close();
    await db?.drop();
  });

  const insert = async (phase: string, count: number): Promise<string[]> => {
    const rows = await db.sql<{ id: string }[]>`
      INSERT INTO outbox (topic, payload)
      SELECT ${`outage.${phase}`}, jsonb_build_object('phase', ${phase}::text, 'n', n)
      FROM generate_series(1, ${count}) AS n
      RETURNING id::text AS id`;
    return rows.map((row) => row.id);
  };
  const states = async (ids: readonly string[]) =>
    db.sql<{ state: string; n: number }[]>`
      SELECT state, count(*)::int AS n FROM outbox WHERE id::text = ANY(${ids as string[]})
      GROUP BY state ORDER BY state`;
  const ready = async () => (await fetch(`${service.base}/health/ready`)).status;
  const deliveredIds = () => new Set(sink.requests.map((r) => String(r.headers['x-message-id'])));

  it('delivers every row committed before and during the outage once the database is back', async () => {
    expect(await ready()).toBe(200);
    const before = await insert('before', 10);
    // Some of them are being published (held by the sink) when the connections go.
    await eventually(() => sink.requests.length > 0);
    const acceptedBeforeCut = proxy.stats().accepted;

    proxy.refuse();
    proxy.cut();
    expect(proxy.stats().open).toBe(0);
    holding = false;
    releaseHeld();
    const during = await insert('during', 10);

    // The outage is visible: readiness says the database is down, nothing new goes out.
    await eventually(async () => (await ready()) === 503);
    const body = (await (await fetch(`${service.base}/health/ready`)).json()) as {
      components: Record<string, { status: string }>;
    };
    expect(body.components.database).toEqual({ status: 'down' });
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(during.some((id) => deliveredIds().has(id))).toBe(false);
    expect(proxy.stats().refused).toBeGreaterThan(0);

    proxy.restore();
    const all = [...before, ...during];
    await eventually(async () => {
      const counts = await states(all);
      return counts.length === 1 && counts[0]!.state === 'sent' && counts[0]!.n === all.length;
    }, 30_000);
    for (const id of all) expect(deliveredIds().has(id)).toBe(true);
    // The same process reconnected through new connections; it answers as before.
    expect(proxy.stats().accepted).toBeGreaterThan(acceptedBeforeCut);
    expect(await ready()).toBe(200);
  }, 60_000);
});
