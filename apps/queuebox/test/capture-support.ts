import { randomBytes } from 'node:crypto';
import { silentLogger, type Logger } from '@queuebox/core';
import { runMigrations } from '@queuebox/postgres';
import {
  createFreshDatabase,
  recordingLogger,
  startHttpSink,
  type FreshDatabase,
  type HttpSink,
} from '@queuebox/testing';
import { afterAll, beforeAll } from 'vitest';
import { eventually, startTestService } from './service.js';

/**
 * Test support for the capture suites: a migrated database with the reference's publication,
 * and the YAML of an outbox with capture on.
 */
export async function captureDatabase(
  serverUrl: string,
  options: { publication?: boolean } = {},
): Promise<FreshDatabase> {
  const db = await createFreshDatabase(serverUrl, 'qb_capture');
  await runMigrations(db.sql, { logger: recordingLogger() });
  if (options.publication !== false)
    await db.sql`CREATE PUBLICATION queuebox_outbox FOR TABLE outbox`;
  return db;
}

/** A slot name of this test file's own: slots are per server, not per database. */
export const uniqueSlot = (label: string): string =>
  `qb_${label}_${randomBytes(3).toString('hex')}`;

export function captureYaml(options: {
  readonly sinkUrl: string;
  readonly slot: string;
  readonly reconciliationIntervalMs: number;
  readonly extra?: string;
}): string {
  return `
database:
  migrate: false
outbox:
  capture:
    mode: postgres-logical
    enabled: true
    stateDirectory: /var/lib/queuebox/capture
    slot: ${options.slot}
    reconciliationIntervalMs: ${options.reconciliationIntervalMs}
${options.extra ?? ''}
destinations:
  sink:
    type: http
    baseUrl: ${options.sinkUrl}
routes:
  - topicPattern: "**"
    destination: sink
`;
}

export const insertOutbox = async (
  db: FreshDatabase,
  topic: string,
  options: { scheduledIn?: string } = {},
): Promise<string> => {
  const [row] = options.scheduledIn
    ? await db.sql<{ id: string }[]>`
        INSERT INTO outbox (id, topic, payload, scheduled_at)
        VALUES (gen_random_uuid(), ${topic}, '{"n":1}', now() + ${options.scheduledIn}::interval)
        RETURNING id`
    : await db.sql<{ id: string }[]>`
        INSERT INTO outbox (id, topic, payload) VALUES (gen_random_uuid(), ${topic}, '{"n":1}')
        RETURNING id`;
  return row!.id;
};

export interface HealthBody {
  status: string;
  components: Record<string, { status: string }>;
}

export async function health(base: string): Promise<{ code: number; body: HealthBody }> {
  const res = await fetch(`${base}/health`);
  return { code: res.status, body: (await res.json()) as HealthBody };
}

export const captureUp = async (base: string): Promise<boolean> =>
  (await health(base)).body.components['outbox-capture']?.status === 'up';

export interface CaptureSuite {
  readonly db: FreshDatabase;
  readonly sink: HttpSink;
  /** The running service; undefined once `stop` ran. */
  readonly service: Awaited<ReturnType<typeof startTestService>> | undefined;
  /** Stops the service before the suite ends, as a test that watches what a stop leaves does. */
  stop(): Promise<void>;
}

/**
 * A suite's QueueBox with capture on, delivering to a real HTTP sink with a reconciliation every
 * 10 s, started by its beforeAll once capture is up, and removed by its afterAll. `prepare` runs
 * on the migrated database before the start, `release` after the stop and before the drop.
 */
export function captureSuite(
  serverUrl: string,
  options: {
    readonly slot: string;
    readonly logger?: Logger;
    readonly prepare?: (db: FreshDatabase) => Promise<void>;
    readonly release?: (db: FreshDatabase) => Promise<void>;
  },
): CaptureSuite {
  let db: FreshDatabase | undefined;
  let sink: HttpSink | undefined;
  let service: Awaited<ReturnType<typeof startTestService>> | undefined;
  beforeAll(async () => {
    db = await captureDatabase(serverUrl);
    await options.prepare?.(db);
    sink = await startHttpSink();
    service = await startTestService(
      db,
      captureYaml({ sinkUrl: sink.url, slot: options.slot, reconciliationIntervalMs: 10_000 }),
      {},
      options.logger ?? silentLogger,
    );
    await eventually(() => captureUp(service!.base), 20_000);
  });
  afterAll(async () => {
    await service?.stop();
    await sink?.close();
    if (db) {
      await options.release?.(db);
      await db.drop();
    }
  });
  return {
    get db() {
      return db!;
    },
    get sink() {
      return sink!;
    },
    get service() {
      return service;
    },
    async stop() {
      await service?.stop();
      service = undefined;
    },
  };
}
