import {
  type FreshDatabase,
  type HttpSink,
  recordingLogger,
  requirePostgresLogical,
  startHttpSink,
} from '@queuebox/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  captureDatabase,
  captureUp,
  captureYaml,
  insertOutbox,
  uniqueSlot,
} from './capture-support.js';
import { eventually, startTestService } from './service.js';

const SUITE = 'app: capture closes its feed while the poller is busy';
const pg = await requirePostgresLogical(SUITE);
const pgUrl = pg.available ? pg.url : '';

type Service = Awaited<ReturnType<typeof startTestService>>;

/**
 * While the poller claims full batches without waiting, capture's wakes add nothing and the
 * server would decode every outbox change for them: the replication connection and its
 * temporary slot go, and come back (a new slot) once the poller is not busy; rows committed
 * meanwhile are delivered by the poller, and a trickle after the busy period is woken again.
 */
describe.skipIf(!pg.available)(SUITE, () => {
  let db: FreshDatabase;
  let sink: HttpSink;
  let service: Service | undefined;
  const slot = uniqueSlot('load');
  const logger = recordingLogger();
  const delivered = () => new Set(sink.requests.map((r) => r.headers['x-message-id'])).size;
  const deliveredId = (id: string) => sink.requests.some((r) => r.headers['x-message-id'] === id);
  const slots = () =>
    db.sql<{ slot_name: string; active_pid: number | null }[]>`
      SELECT slot_name, active_pid FROM pg_replication_slots WHERE slot_name LIKE ${`${slot}%`}`;
  const walsenders = async () =>
    (await db.sql<{ pid: number }[]>`SELECT pid FROM pg_stat_replication`).map((r) => r.pid);
  const feedState = async (): Promise<Record<string, number>> => {
    const text = await (await fetch(`${service!.base}/metrics`)).text();
    const states: Record<string, number> = {};
    for (const match of text.matchAll(/^queuebox_capture_feed_state\{state="(\w+)"\} (\d+)$/gm))
      states[match[1]!] = Number(match[2]);
    return states;
  };

  beforeAll(async () => {
    db = await captureDatabase(pgUrl);
    sink = await startHttpSink();
    service = await startTestService(
      db,
      captureYaml({ sinkUrl: sink.url, slot, reconciliationIntervalMs: 10_000 }),
      {},
      logger,
    );
    await eventually(() => captureUp(service!.base), 20_000);
  });
  afterAll(async () => {
    await service?.stop();
    await sink?.close();
    await db?.drop();
  });

  it('drops its slot and replication connection under a steady 2,500 rows/s, and opens a new one after', async () => {
    const [first] = await slots();
    expect(first?.active_pid).toEqual(expect.any(Number));
    expect(await walsenders()).toContain(first!.active_pid);
    expect(await feedState()).toEqual({ streaming: 1, paused: 0, down: 0 });

    // 100 rows every 40 ms: a full batch claimed in every 100 ms window.
    let inserting = true;
    let inserted = 0;
    const inserter = (async () => {
      while (inserting) {
        await db.sql`INSERT INTO outbox (id, topic, payload)
          SELECT gen_random_uuid(), 'load.row', '{"n":1}' FROM generate_series(1, 100)`;
        inserted += 100;
        await new Promise((resolve) => setTimeout(resolve, 40));
      }
    })();
    try {
      await eventually(async () => (await slots()).length === 0, 10_000);
      // A temporary slot goes as its walsender exits, a moment before the walsender leaves
      // pg_stat_replication: the connection is gone once that entry is too.
      await eventually(async () => !(await walsenders()).includes(first!.active_pid!), 10_000);
      // The gauge follows the close once the feed has reported it, a moment after the slot went.
      await eventually(async () => (await feedState()).paused === 1, 10_000);
      expect(await feedState()).toEqual({ streaming: 0, paused: 1, down: 0 });
      // Paused on purpose: the advisory component stays up.
      expect(await captureUp(service!.base)).toBe(true);
      // It stays closed while the load lasts, instead of flapping.
      for (let i = 0; i < 10; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        expect(await slots()).toEqual([]);
      }
    } finally {
      inserting = false;
      await inserter;
    }

    // Every row went out by polling while the feed was closed.
    await eventually(() => delivered() === inserted, 30_000);
    const [second] = await eventually(async () => {
      const found = await slots();
      return found.length === 1 && found[0]!.active_pid !== null ? found : undefined;
    }, 10_000);
    expect(second!.slot_name).not.toBe(first!.slot_name);
    expect(await walsenders()).toContain(second!.active_pid);
    // A temporary slot is active from its creation on, before the stream starts on it: the gauge
    // follows once the feed reports streaming, a moment after the slot appeared.
    await eventually(async () => (await feedState()).streaming === 1, 10_000);
    expect(await feedState()).toEqual({ streaming: 1, paused: 0, down: 0 });
    expect(logger.messages('warn')).toEqual([]);
  });

  it('delivers a trickle after the busy period within milliseconds again, not after the 10 s reconciliation', async () => {
    const latencies: number[] = [];
    for (let i = 0; i < 5; i++) {
      await new Promise((resolve) => setTimeout(resolve, 150 + 50 * i));
      const started = performance.now();
      const id = await insertOutbox(db, 'trickle.row');
      await eventually(() => deliveredId(id), 5_000);
      latencies.push(performance.now() - started);
    }
    // The eventually polls every 50 ms; the wake itself takes a few ms.
    for (const ms of latencies) expect(ms).toBeLessThan(1_000);
  });
});
