import { readFileSync } from 'node:fs';
import {
  requirePostgresLogical,
  startHttpSink,
  type FreshDatabase,
  type HttpSink,
} from '@queuebox/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureDatabase, captureUp, insertOutbox } from './capture-support.js';
import { eventually, startTestService } from './service.js';

const SUITE = 'app: the reference configuration cdc.yml';
const pg = await requirePostgresLogical(SUITE);
const pgUrl = pg.available ? pg.url : '';

const CDC_YML = readFileSync(
  new URL('../../../packages/config/testdata/reference-configs/cdc.yml', import.meta.url),
  'utf8',
);

/**
 * The reference's capture example as it is, only the database and the receiver overridden
 * through QUEUEBOX_* variables. Its reconciliation interval is 30 s, so a delivery within a
 * second is capture's doing. Its state directory (/var/lib/queuebox/capture) does not exist
 * here: this build keeps no capture state, so it need not.
 */
describe.skipIf(!pg.available)(SUITE, () => {
  let db: FreshDatabase;
  let sink: HttpSink;
  let service: Awaited<ReturnType<typeof startTestService>>;

  beforeAll(async () => {
    db = await captureDatabase(pgUrl);
    sink = await startHttpSink();
    service = await startTestService(db, CDC_YML, {
      QUEUEBOX_DESTINATIONS_RECEIVER_BASEURL: sink.url,
    });
    await eventually(() => captureUp(service.base), 20_000);
  });
  afterAll(async () => {
    await service?.stop();
    await sink?.close();
    await db?.drop();
  });

  it('loads unchanged and delivers an order event to the receiver well inside the 30 s interval', async () => {
    expect(service.config.outbox.capture).toMatchObject({
      mode: 'postgres-logical',
      enabled: true,
      identity: 'queuebox',
      publication: 'queuebox_outbox',
      slot: 'queuebox_outbox',
      reconciliationIntervalMs: 30_000,
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const inserted = performance.now();
    const id = await insertOutbox(db, 'order.created');
    await eventually(() => sink.requests.some((r) => r.headers['x-message-id'] === id), 5_000);
    expect(performance.now() - inserted).toBeLessThan(3_000);
    expect(sink.requests[0]?.url).toBe('/events');
  });
});
