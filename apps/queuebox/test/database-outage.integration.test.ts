import { requireService } from '@queuebox/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { proxiedService } from './proxied-service.js';
import { eventually } from './service.js';
import { RELAY_OFF, sinkRoute } from './yaml-pieces.js';

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
  let releaseHeld: () => void = () => undefined;
  const held = new Promise<void>((resolve) => {
    releaseHeld = resolve;
  });
  let holding = true;

  const qb = proxiedService(pg.available ? pg.url : '', 'qb_outage', {
    answer: async (_request, response) => {
      // The first publishes stay unanswered until the database is cut, so their sent marks fail.
      if (holding) await held;
      response.writeHead(200).end('ok');
    },
    yaml: (sinkUrl) => `
database:
  migrate: true
  connectionTimeoutMs: 2000
outbox:
  pollIntervalMs: 50
  claimTimeoutMs: 2000
  retryBaseDelayMs: 100
${RELAY_OFF}${sinkRoute(sinkUrl, { path: '/events', topicPattern: 'outage.*' })}`,
  });
  // Registered after the service's hooks, so it runs before the service stops.
  afterAll(() => releaseHeld());

  const insert = async (phase: string, count: number): Promise<string[]> => {
    const rows = await qb.db.sql<{ id: string }[]>`
      INSERT INTO outbox (topic, payload)
      SELECT ${`outage.${phase}`}, jsonb_build_object('phase', ${phase}::text, 'n', n)
      FROM generate_series(1, ${count}) AS n
      RETURNING id::text AS id`;
    return rows.map((row) => row.id);
  };
  const states = async (ids: readonly string[]) =>
    qb.db.sql<{ state: string; n: number }[]>`
      SELECT state, count(*)::int AS n FROM outbox WHERE id::text = ANY(${ids as string[]})
      GROUP BY state ORDER BY state`;
  const ready = async () => (await fetch(`${qb.service.base}/health/ready`)).status;
  const deliveredIds = () =>
    new Set(qb.sink.requests.map((r) => String(r.headers['x-message-id'])));

  it('delivers every row committed before and during the outage once the database is back', async () => {
    expect(await ready()).toBe(200);
    const before = await insert('before', 10);
    // Some of them are being published (held by the sink) when the connections go.
    await eventually(() => qb.sink.requests.length > 0);
    const acceptedBeforeCut = qb.proxy.stats().accepted;

    qb.proxy.refuse();
    qb.proxy.cut();
    expect(qb.proxy.stats().open).toBe(0);
    holding = false;
    releaseHeld();
    const during = await insert('during', 10);

    // The outage is visible: readiness says the database is down, nothing new goes out.
    await eventually(async () => (await ready()) === 503);
    const body = (await (await fetch(`${qb.service.base}/health/ready`)).json()) as {
      components: Record<string, { status: string }>;
    };
    expect(body.components.database).toEqual({ status: 'down' });
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(during.some((id) => deliveredIds().has(id))).toBe(false);
    expect(qb.proxy.stats().refused).toBeGreaterThan(0);

    qb.proxy.restore();
    const all = [...before, ...during];
    await eventually(async () => {
      const counts = await states(all);
      return counts.length === 1 && counts[0]!.state === 'sent' && counts[0]!.n === all.length;
    }, 30_000);
    for (const id of all) expect(deliveredIds().has(id)).toBe(true);
    // The same process reconnected through new connections; it answers as before.
    expect(qb.proxy.stats().accepted).toBeGreaterThan(acceptedBeforeCut);
    expect(await ready()).toBe(200);
  }, 60_000);
});
