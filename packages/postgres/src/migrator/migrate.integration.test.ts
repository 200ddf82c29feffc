import { BASELINE_REFUSED, TABLES_WITHOUT_HISTORY, flywayChecksum } from '@queuebox/core';
import { createFreshDatabase, requireService, until, type FreshDatabase } from '@queuebox/testing';
import postgres from 'postgres';
import { afterAll, describe, expect, it } from 'vitest';
import { queueBoxFailure, recordingLogger } from '../../test/support.js';
import { migrations, type Migration } from '../migrations/index.js';
import { flywayLockKey } from './advisory-lock.js';
import { runMigrations } from './migrate.js';

const pg = await requireService('postgres', 'postgres: migrator');

// Every bundled version: the reference's V1..V11 and the files added after them.
const ALL = migrations.map((m) => m.version);
const APPLIED_ALL = `Applied ${ALL.length} migration(s): ${ALL.join(', ')}.`;
/** The versions after `version`, in order. */
const after = (version: string) => ALL.slice(ALL.indexOf(version) + 1);

interface HistoryLine {
  installed_rank: number;
  version: string | null;
  description: string;
  type: string;
  script: string;
  checksum: number | null;
  installed_by: string;
  execution_time: number;
  success: boolean;
}

describe.skipIf(!pg.available)('the migrator', () => {
  const made: FreshDatabase[] = [];
  const fresh = async (): Promise<FreshDatabase> => {
    if (!pg.available) throw new Error('unreachable');
    const db = await createFreshDatabase(pg.url);
    made.push(db);
    return db;
  };
  afterAll(async () => {
    for (const db of made) await db.drop();
  });

  const history = (db: FreshDatabase) =>
    db.sql<HistoryLine[]>`
      SELECT installed_rank, version, description, type, script, checksum, installed_by, execution_time, success
      FROM flyway_schema_history ORDER BY installed_rank`;

  /** Applies files by hand, the way an operator without the migrator would. */
  const applyByHand = async (db: FreshDatabase, upTo: number) => {
    for (const migration of migrations.slice(0, upTo)) await db.sql.unsafe(migration.sql);
  };

  const failure = queueBoxFailure;

  it('applies every bundled version on an empty database, logs them, and a second run applies nothing', async () => {
    const db = await fresh();
    const logger = recordingLogger();
    const first = await runMigrations(db.sql, { logger });
    expect(first).toEqual({ applied: ALL, baseline: null });
    expect(logger.messages('info')).toContain(APPLIED_ALL);

    const second = await runMigrations(db.sql, { logger });
    expect(second).toEqual({ applied: [], baseline: null });
    expect(await history(db)).toHaveLength(ALL.length);
  });

  it('writes history rows the way Flyway does', async () => {
    const db = await fresh();
    await runMigrations(db.sql, { logger: recordingLogger() });
    const [me] = await db.sql<{ user: string }[]>`SELECT current_user AS user`;
    const user = me?.user;
    const rows = await history(db);
    expect(rows.map((r) => r.installed_rank)).toEqual(ALL.map((_v, i) => i + 1));
    rows.forEach((row, i) => {
      const migration = migrations[i]!;
      expect(row).toMatchObject({
        version: migration.version,
        description: migration.description,
        type: 'SQL',
        script: migration.script,
        checksum: flywayChecksum(migration.sql),
        installed_by: user,
        success: true,
      });
      expect(row.execution_time).toBeGreaterThanOrEqual(0);
    });
    expect(rows[0]).toMatchObject({
      description: 'create outbox',
      script: 'V1__create_outbox.sql',
    });
    const [installed] = await db.sql<{ fresh: boolean }[]>`
      SELECT bool_and(installed_on > now() - interval '1 minute') AS fresh FROM flyway_schema_history`;
    expect(installed?.fresh).toBe(true);
  });

  it('stops when the QueueBox tables exist without a history, and changes nothing', async () => {
    const db = await fresh();
    await db.sql`CREATE TABLE outbox (id UUID PRIMARY KEY)`;
    const error = await failure(runMigrations(db.sql, { logger: recordingLogger() }));
    expect(error.code).toBe('migration_failed');
    expect(error.message).toBe(
      'QueueBox tables exist without a migration history. Run `queuebox migrate --baseline <version>` with the last version you applied by hand.',
    );
    expect(error.message).toBe(TABLES_WITHOUT_HISTORY);
    const [found] = await db.sql<{ n: number }[]>`
      SELECT count(*)::int AS n FROM information_schema.tables WHERE table_name = 'flyway_schema_history'`;
    expect(found?.n).toBe(0);
  });

  it('finds an upper-case QueueBox table too', async () => {
    const db = await fresh();
    await db.sql`CREATE TABLE "INBOX" (id UUID PRIMARY KEY)`;
    const error = await failure(runMigrations(db.sql, { logger: recordingLogger() }));
    expect(error.message).toBe(TABLES_WITHOUT_HISTORY);
  });

  it('migrates a database that holds only application tables, after a baseline at 0', async () => {
    const db = await fresh();
    await db.sql`CREATE TABLE orders (id SERIAL PRIMARY KEY, outbox_note TEXT)`;
    await db.sql`INSERT INTO orders (outbox_note) VALUES ('kept')`;
    const logger = recordingLogger();
    const report = await runMigrations(db.sql, { logger });
    expect(report).toEqual({ applied: ALL, baseline: '0' });
    const rows = await history(db);
    expect(rows[0]).toMatchObject({
      installed_rank: 1,
      version: '0',
      description: '<< Flyway Baseline >>',
      type: 'BASELINE',
      script: '<< Flyway Baseline >>',
      checksum: null,
      success: true,
    });
    expect(rows.slice(1).map((r) => r.version)).toEqual(ALL);
    expect(rows.slice(1).map((r) => r.installed_rank)).toEqual(ALL.map((_v, i) => i + 2));
    const [kept] = await db.sql<{ outbox_note: string }[]>`SELECT outbox_note FROM orders`;
    expect(kept?.outbox_note).toBe('kept');
  });

  it('records a baseline without running it or earlier files, then applies the later ones', async () => {
    const db = await fresh();
    await applyByHand(db, 6);
    const logger = recordingLogger();
    const report = await runMigrations(db.sql, { logger, baseline: '6' });
    expect(report).toEqual({ applied: after('6'), baseline: '6' });
    expect(logger.messages('info')).toEqual([
      'Recorded the baseline at version 6.',
      `Applied ${after('6').length} migration(s): ${after('6').join(', ')}.`,
    ]);
    const rows = await history(db);
    expect(rows.map((r) => [r.installed_rank, r.version, r.type, r.script])).toEqual([
      [1, '6', 'BASELINE', '<< Flyway Baseline >>'],
      [2, '7', 'SQL', 'V7__capture_state.sql'],
      [3, '8', 'SQL', 'V8__add_pull_claim_indexes.sql'],
      [4, '9', 'SQL', 'V9__add_aggregate_type.sql'],
      [5, '10', 'SQL', 'V10__add_inbox_headers.sql'],
      [6, '11', 'SQL', 'V11__add_outbox_sequence.sql'],
      ...migrations.slice(11).map((m, i) => [7 + i, m.version, 'SQL', m.script]),
    ]);
    expect(rows[0]).toMatchObject({
      description: '<< Flyway Baseline >>',
      checksum: null,
      success: true,
    });
    expect(await runMigrations(db.sql, { logger })).toEqual({ applied: [], baseline: null });
  });

  it('refuses a baseline on a database that already has a history', async () => {
    const db = await fresh();
    await runMigrations(db.sql, { logger: recordingLogger(), target: '3' });
    const error = await failure(
      runMigrations(db.sql, { logger: recordingLogger(), baseline: '3' }),
    );
    expect(error.message).toBe(
      'The database already has a migration history, so QueueBox refuses to record a baseline. Run `queuebox migrate` without --baseline.',
    );
    expect(error.message).toBe(BASELINE_REFUSED);
    expect(await history(db)).toHaveLength(3);
  });

  it('refuses a baseline version it does not bundle, listing the bundled versions', async () => {
    const db = await fresh();
    const error = await failure(
      runMigrations(db.sql, { logger: recordingLogger(), baseline: '99' }),
    );
    expect(error.message).toContain("Version '99' is not a bundled migration");
    expect(error.message).toContain(`The bundled versions are: ${ALL.join(', ')}.`);
    const [found] = await db.sql<{ n: number }[]>`
      SELECT count(*)::int AS n FROM information_schema.tables WHERE table_name = 'flyway_schema_history'`;
    expect(found?.n).toBe(0);
  });

  it('accepts a history the reference wrote: versions count, checksums do not', async () => {
    const db = await fresh();
    await applyByHand(db, 10);
    await db.sql.unsafe(`
      CREATE TABLE flyway_schema_history (
        installed_rank INT NOT NULL, version VARCHAR(50), description VARCHAR(200) NOT NULL,
        type VARCHAR(20) NOT NULL, script VARCHAR(1000) NOT NULL, checksum INTEGER,
        installed_by VARCHAR(100) NOT NULL, installed_on TIMESTAMP NOT NULL DEFAULT now(),
        execution_time INTEGER NOT NULL, success BOOLEAN NOT NULL,
        CONSTRAINT flyway_schema_history_pk PRIMARY KEY (installed_rank))`);
    for (const [i, migration] of migrations.slice(0, 10).entries()) {
      // Checksums of other file text, as the Kotlin build recorded them.
      await db.sql`
        INSERT INTO flyway_schema_history VALUES
          (${i + 1}, ${migration.version}, ${migration.description}, 'SQL', ${migration.script}, ${-1000 - i},
           'reference', now(), 12, true)`;
    }
    const report = await runMigrations(db.sql, { logger: recordingLogger() });
    expect(report.applied).toEqual(after('10'));
    const rows = await history(db);
    expect(rows[10]).toMatchObject({
      installed_rank: 11,
      version: '11',
      checksum: flywayChecksum(migrations[10]!.sql),
    });
  });

  it('lets two migrators start at once: both succeed, with one history', async () => {
    const db = await fresh();
    const replicas = [
      postgres(db.url, { max: 2, onnotice: () => undefined }),
      postgres(db.url, { max: 2, onnotice: () => undefined }),
    ];
    try {
      const reports = await Promise.all(
        replicas.map((sql) => runMigrations(sql, { logger: recordingLogger() })),
      );
      expect(reports.map((r) => r.applied.length).sort((a, b) => a - b)).toEqual([0, ALL.length]);
    } finally {
      await Promise.all(replicas.map((sql) => sql.end()));
    }
    const rows = await history(db);
    expect(rows.map((r) => r.version)).toEqual(ALL);
  });

  it("waits while another process holds Flyway's migration lock", async () => {
    const db = await fresh();
    const holder = await db.sql.reserve();
    const key = flywayLockKey('public', 'flyway_schema_history').toString();
    await holder`SELECT pg_advisory_lock(${key}::bigint)`;
    const logger = recordingLogger();
    let finished = false;
    const running = runMigrations(db.sql, { logger }).finally(() => (finished = true));
    try {
      // Waits for the outcome (the wait is logged), not a fixed time: a loaded machine is slow.
      await until(() => logger.messages('info').length > 0, 30_000);
      expect(finished).toBe(false);
      expect(logger.messages('info')).toEqual([
        'Another process is migrating this database. QueueBox waits until it has finished.',
      ]);
    } finally {
      await holder`SELECT pg_advisory_unlock(${key}::bigint)`;
      holder.release();
    }
    expect((await running).applied).toEqual(ALL);
  });

  it('rolls a failing file back together with its history row', async () => {
    const db = await fresh();
    const broken: Migration = {
      version: '2',
      description: 'broken',
      script: 'V2__broken.sql',
      sql: 'CREATE TABLE half_done (x INT);\nSELECT * FROM no_such_table;\n',
    };
    const logger = recordingLogger();
    const error = await failure(
      runMigrations(db.sql, { logger, migrations: [migrations[0]!, broken] }),
    );
    expect(error.code).toBe('migration_failed');
    expect(error.message).toMatch(
      /^Migration V2__broken\.sql failed and was rolled back\. Reason: .*no_such_table/,
    );
    expect(logger.messages('info')).toContain('Applied 1 migration(s): 1.');
    expect((await history(db)).map((r) => r.version)).toEqual(['1']);
    const [table] = await db.sql<
      { found: string | null }[]
    >`SELECT to_regclass('half_done')::text AS found`;
    expect(table?.found).toBeNull();
  });

  it('V11 numbers existing outbox rows in (created_at, id) order, then continues after them', async () => {
    const db = await fresh();
    expect(
      (await runMigrations(db.sql, { logger: recordingLogger(), target: '10' })).applied,
    ).toHaveLength(10);
    // Inserted out of order; two rows share created_at, so id breaks the tie.
    const rows: [id: string, createdAt: string][] = [
      ['00000000-0000-0000-0000-000000000003', '2024-01-01T00:00:03Z'],
      ['00000000-0000-0000-0000-000000000001', '2024-01-01T00:00:01Z'],
      ['00000000-0000-0000-0000-00000000000b', '2024-01-01T00:00:02Z'],
      ['00000000-0000-0000-0000-00000000000a', '2024-01-01T00:00:02Z'],
    ];
    for (const [id, createdAt] of rows) {
      await db.sql`INSERT INTO outbox (id, topic, key, payload, created_at) VALUES (${id}, 't', 'k', '{}', ${createdAt})`;
    }
    expect((await runMigrations(db.sql, { logger: recordingLogger() })).applied).toEqual(
      after('10'),
    );
    const numbered = await db.sql<{ id: string; sequence: string }[]>`
      SELECT id::text AS id, sequence::text AS sequence FROM outbox ORDER BY sequence`;
    expect(numbered).toEqual([
      { id: '00000000-0000-0000-0000-000000000001', sequence: '1' },
      { id: '00000000-0000-0000-0000-00000000000a', sequence: '2' },
      { id: '00000000-0000-0000-0000-00000000000b', sequence: '3' },
      { id: '00000000-0000-0000-0000-000000000003', sequence: '4' },
    ]);
    const [next] = await db.sql<{ sequence: string }[]>`
      INSERT INTO outbox (topic, payload) VALUES ('t', '{}') RETURNING sequence::text AS sequence`;
    expect(next?.sequence).toBe('5');
  });
});
