import { randomBytes } from 'node:crypto';
import { runMigrations } from '@queuebox/postgres';
import { createFreshDatabase, recordingLogger, type FreshDatabase } from '@queuebox/testing';

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
