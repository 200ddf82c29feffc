import { recordingLogger, requirePostgresLogical } from '@queuebox/testing';
import { describe, expect, it } from 'vitest';
import { captureSuite, health, insertOutbox, uniqueSlot } from './capture-support.js';
import { eventually } from './service.js';

const SUITE = 'app: capture wakes the poller';
const pg = await requirePostgresLogical(SUITE);
const pgUrl = pg.available ? pg.url : '';

/** Issue 14, done-when: inserts wake, updates do not, and a stopped QueueBox leaves no slot. */
describe.skipIf(!pg.available)(SUITE, () => {
  const slot = uniqueSlot('wakes');
  const h = captureSuite(pgUrl, { slot });
  const delivered = (id: string) => h.sink.requests.some((r) => r.headers['x-message-id'] === id);
  const slots = () =>
    h.db.sql<{ slot_name: string; temporary: boolean; active: boolean }[]>`
      SELECT slot_name, temporary, active FROM pg_replication_slots
      WHERE slot_name LIKE ${`${slot}%`}`;

  it('lists outbox-capture after the database in readiness, up', async () => {
    const { code, body } = await health(h.service!.base);
    expect(code).toBe(200);
    expect(Object.keys(body.components).slice(0, 3)).toEqual([
      'database',
      'outbox-capture',
      'outbox-poller',
    ]);
  });

  it('delivers each insert well before the reconciliation interval of 10 s', async () => {
    for (let i = 0; i < 5; i++) {
      // Spread over the interval, so no delivery can be a reconciliation by luck.
      await new Promise((resolve) => setTimeout(resolve, 150 + 100 * i));
      const inserted = performance.now();
      const id = await insertOutbox(h.db, 'order.created');
      await eventually(() => delivered(id), 5_000);
      expect(performance.now() - inserted).toBeLessThan(3_000);
    }
  });

  it('does not wake on an update: a row made due by an update waits for the reconciliation', async () => {
    const id = await insertOutbox(h.db, 'order.later', { scheduledIn: '1 hour' });
    // The insert woke the poller, which found nothing due and now sleeps up to 10 s.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const updated = performance.now();
    await h.db.sql`UPDATE outbox SET scheduled_at = now() WHERE id = ${id}`;
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect(delivered(id)).toBe(false);
    await eventually(() => delivered(id), 15_000);
    expect(performance.now() - updated).toBeGreaterThan(2_500);
  });

  it('holds one temporary slot while it runs, and none once QueueBox stopped', async () => {
    expect(await slots()).toEqual([
      {
        slot_name: expect.stringMatching(new RegExp(`^${slot}_[0-9a-f]{8}$`)),
        temporary: true,
        active: true,
      },
    ]);
    await h.stop();
    // A temporary slot goes with its connection: nothing retains WAL while QueueBox is down.
    await eventually(async () => (await slots()).length === 0, 10_000);
    const [rows] = await h.db.sql<{ count: string }[]>`
      SELECT count(*) FROM pg_replication_slots WHERE NOT temporary AND slot_name LIKE ${`${slot}%`}`;
    expect(Number(rows!.count)).toBe(0);
    // The registry row stays: it records that the identity is captured.
    const registry = await h.db.sql`SELECT identity_name FROM queuebox_capture_state`;
    expect(registry).toEqual([{ identity_name: 'queuebox' }]);
  });
});

/** A durable slot of the configured name (what QueueBox 0.8.1 left) is reported, not read. */
describe.skipIf(!pg.available)('app: a durable slot left by QueueBox 0.8.1', () => {
  const slot = uniqueSlot('legacy');
  const logger = recordingLogger();
  const h = captureSuite(pgUrl, {
    slot,
    logger,
    prepare: async (db) => {
      await db.sql`SELECT pg_create_logical_replication_slot(${slot}, 'pgoutput')`;
      for (let i = 0; i < 3; i++) await insertOutbox(db, 'before.start');
    },
    // A durable slot retains WAL on the shared server for ever: it must go, whatever failed.
    release: async (db) => {
      await db.sql`SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots
        WHERE slot_name = ${slot}`;
    },
  });

  it('warns with the drop command and exposes the WAL it retains, while capture runs beside it', async () => {
    const warning = logger.messages('warn').find((line) => line.includes(slot));
    expect(warning).toContain(`The durable replication slot '${slot}'`);
    expect(warning).toContain(`Drop it: SELECT pg_drop_replication_slot('${slot}');`);
    const text = await (await fetch(`${h.service!.base}/metrics`)).text();
    const sample = new RegExp(
      `^queuebox_capture_durable_slot_retained_bytes\\{slot="${slot}"\\} (\\d+)$`,
      'm',
    ).exec(text);
    expect(Number(sample?.[1])).toBeGreaterThan(0);
    // Rows committed before the start went out on the start's wake, with the durable slot unread.
    await eventually(() => h.sink.requests.length === 3, 5_000);
    const [durable] = await h.db.sql<{ active: boolean }[]>`
      SELECT active FROM pg_replication_slots WHERE slot_name = ${slot}`;
    expect(durable?.active).toBe(false);
  });
});
