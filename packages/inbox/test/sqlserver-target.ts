import { randomBytes, randomUUID } from 'node:crypto';
import { silentLogger } from '@queuebox/core';
import { connectionConfig, createPool, runMigrations } from '@queuebox/sqlserver';
import { sqlServerLogin, sqlServerMigrationConfig, type ServiceLookup } from '@queuebox/testing';
import mssql from 'mssql';
import { fromMssql } from '../src/index.js';
import type { InboxRowState, WorkerHarness, WorkerTarget, WorkRow } from './contract/harness.js';

export type MssqlAdapter = 'fromMssql(mssql, pool)' | 'fromMssql(pool)';

/** A database of its own on the located SQL Server, migrated by QueueBox, and an mssql pool on it. */
export interface FreshMssql {
  readonly pool: mssql.ConnectionPool;
  /** The database as an mssql connection string (what the docs examples read from DATABASE_URL). */
  readonly connectionString: string;
  drop(): Promise<void>;
}

/**
 * A fresh SQL Server database migrated by QueueBox's own SQL Server migrations (as
 * @queuebox/outbox's mssql test makes it), with the harness's tables, and a pool on it.
 */
export async function freshMssqlDatabase(url: string): Promise<FreshMssql> {
  const s = sqlServerLogin(url);
  const name = `qb_pull_${randomBytes(5).toString('hex')}`;
  // Local and container servers use a self-signed certificate. The worker needs requests of
  // 30 s or more (fromMssql refuses less): the claim's lock wait is 10 s.
  const base = {
    server: s.host,
    port: s.port,
    user: s.user,
    password: s.password,
    requestTimeout: 30_000,
    options: { encrypt: false, trustServerCertificate: true },
  };
  const master = await new mssql.ConnectionPool({ ...base, database: 'master' }).connect();
  await master.request().batch(`CREATE DATABASE [${name}]`);
  const migrator = createPool(connectionConfig(sqlServerMigrationConfig(s, name)), 1, 30_000);
  await runMigrations(migrator, { logger: silentLogger });
  await migrator.close();
  const pool = await new mssql.ConnectionPool({
    ...base,
    database: name,
    pool: { max: 16 },
  }).connect();
  await pool
    .request()
    .batch(
      [HARNESS_SQL.workTable, HARNESS_SQL.renamedTable, HARNESS_SQL.processedOrders]
        .map((statement) => statement.text)
        .join(';\n'),
    );
  return {
    pool,
    connectionString: `Server=${s.host},${s.port};Database=${name};User Id=${s.user};Password=${s.password};Encrypt=false;TrustServerCertificate=true`,
    async drop() {
      await pool.close();
      await master
        .request()
        .batch(
          `ALTER DATABASE [${name}] SET SINGLE_USER WITH ROLLBACK IMMEDIATE; DROP DATABASE [${name}]`,
        );
      await master.close();
    },
  };
}

/** The worker on a fresh database through an mssql ConnectionPool, the rows read with mssql. */
export function sqlServerTarget(ss: ServiceLookup, adapter: MssqlAdapter): WorkerTarget {
  return {
    label: `SQL Server through ${adapter}`,
    skip: !ss.available && ss.reason,
    async open() {
      if (!ss.available) throw new Error(`SQL Server is not available: ${ss.reason}`);
      const db = await freshMssqlDatabase(ss.url);
      const pool = db.pool;
      // Each statement is given exactly the parameters it declares (the parse test checks the
      // declarations against the text).
      const q = async <S extends HarnessStatement>(
        statement: S,
        inputs: Record<S['params'][number], unknown>,
      ): Promise<unknown[]> => {
        const request = pool.request();
        for (const name of statement.params)
          request.input(name, inputs[name as keyof typeof inputs]);
        return (await request.query(statement.text)).recordset ?? [];
      };
      const harness: WorkerHarness = {
        dialect: 'sqlserver',
        connections: adapter === 'fromMssql(pool)' ? fromMssql(pool) : fromMssql(mssql, pool),
        insertWork: 'INSERT INTO work (source, message_id, note) VALUES (@p1, @p2, @p3)',
        async insertPull(row = {}) {
          const id = randomUUID();
          await q(HARNESS_SQL.insertPull, {
            id,
            source: row.source ?? 'orders',
            key: `key-${id}`,
            aggregate: row.aggregateId ?? null,
            type: row.eventType ?? null,
            payload: row.payloadJson ?? JSON.stringify(row.payload ?? { n: 1 }),
            headers: JSON.stringify(row.headers ?? {}),
            correlation: row.correlationId ?? null,
            delay: row.delayMs ?? 0,
          });
          return id;
        },
        async rowOf(id) {
          const [row] = (await q(HARNESS_SQL.rowOf, { id })) as InboxRowState[];
          return row!;
        },
        work: async (source) => (await q(HARNESS_SQL.work, { source })) as WorkRow[],
        async setAttempt(id, attempt) {
          await q(HARNESS_SQL.setAttempt, { id, attempt });
        },
        async stealClaim(id) {
          await q(HARNESS_SQL.stealClaim, { id });
        },
        async processing(source) {
          const [held] = (await q(HARNESS_SQL.processing, { source })) as { n: number }[];
          return held!.n;
        },
        async insertRenamed(id) {
          await q(HARNESS_SQL.insertRenamed, { id });
        },
        async renamedRow(id) {
          const [row] = (await q(HARNESS_SQL.renamedRow, { id })) as {
            state: string;
            last_error: string | null;
          }[];
          return row!;
        },
        close: () => db.drop(),
      };
      return harness;
    },
  };
}

/**
 * The harness's own T-SQL, by name: read by the statement-parse test too, so a slip here cannot
 * wait for the first run on a real server to show.
 */
export const HARNESS_SQL = {
  workTable: {
    text: 'CREATE TABLE work (source NVARCHAR(100), message_id UNIQUEIDENTIFIER, note NVARCHAR(200))',
    params: [],
  },
  // What the docs/pull.md SQL Server example writes into.
  processedOrders: {
    text: 'CREATE TABLE processed_orders (message_id UNIQUEIDENTIFIER PRIMARY KEY, payload NVARCHAR(MAX) NOT NULL)',
    params: [],
  },
  // A pull message of the source `orders`, as the docs examples expect them.
  insertOrder: {
    text: `INSERT INTO inbox (source, idempotency_key, aggregate_id, payload, consumption)
VALUES ('orders', @key, @aggregate, @payload, 'pull')`,
    params: ['key', 'aggregate', 'payload'],
  },
  // The renamed layout: QueueBox's column types under other names.
  renamedTable: {
    text: `CREATE TABLE app_inbox (
  m_id UNIQUEIDENTIFIER NOT NULL PRIMARY KEY,
  m_source NVARCHAR(255) NOT NULL,
  m_key NVARCHAR(255) NOT NULL,
  m_aggregate NVARCHAR(255) NULL,
  m_type NVARCHAR(255) NULL,
  m_body NVARCHAR(MAX) NOT NULL,
  m_headers NVARCHAR(MAX) NOT NULL DEFAULT '{}',
  m_correlation NVARCHAR(128) NULL,
  m_consumption VARCHAR(4) NOT NULL DEFAULT 'pull',
  m_state NVARCHAR(50) NOT NULL DEFAULT 'pending',
  m_created_at DATETIME2 NOT NULL DEFAULT SYSUTCDATETIME(),
  m_processed_at DATETIME2 NULL,
  m_scheduled_at DATETIME2 NOT NULL DEFAULT SYSUTCDATETIME(),
  m_attempt INT NOT NULL DEFAULT 0,
  m_last_error NVARCHAR(MAX) NULL,
  m_claimed_at DATETIME2 NULL,
  m_claim_token UNIQUEIDENTIFIER NULL,
  m_lease_expires_at DATETIME2 NULL
)`,
    params: [],
  },
  // SYSUTCDATETIME() may repeat between two quick inserts: created_at (and scheduled_at) move
  // on by a microsecond past the latest row, so insertion order is claim order.
  insertPull: {
    text: `DECLARE @now DATETIME2 = (
  SELECT CASE WHEN MAX(created_at) >= SYSUTCDATETIME() THEN DATEADD(microsecond, 1, MAX(created_at))
    ELSE SYSUTCDATETIME() END
  FROM inbox);
INSERT INTO inbox (id, source, idempotency_key, aggregate_id, event_type, payload, headers,
  correlation_id, consumption, state, created_at, scheduled_at)
VALUES (@id, @source, @key, @aggregate, @type, @payload, @headers, @correlation, 'pull',
  'pending', @now, DATEADD(millisecond, @delay, @now))`,
    params: [
      'id',
      'source',
      'key',
      'aggregate',
      'type',
      'payload',
      'headers',
      'correlation',
      'delay',
    ],
  },
  rowOf: {
    text: `SELECT LOWER(CAST(id AS VARCHAR(36))) AS id, state, attempt, last_error,
  LOWER(CAST(claim_token AS VARCHAR(36))) AS claim_token, scheduled_at, processed_at
FROM inbox WHERE id = @id`,
    params: ['id'],
  },
  work: {
    text: `SELECT LOWER(CAST(message_id AS VARCHAR(36))) AS message_id, note FROM work
WHERE source = @source ORDER BY note`,
    params: ['source'],
  },
  setAttempt: {
    text: 'UPDATE inbox SET attempt = @attempt WHERE id = @id',
    params: ['attempt', 'id'],
  },
  stealClaim: { text: 'UPDATE inbox SET claim_token = NEWID() WHERE id = @id', params: ['id'] },
  processing: {
    text: "SELECT COUNT(*) AS n FROM inbox WHERE source = @source AND state = 'processing'",
    params: ['source'],
  },
  insertRenamed: {
    text: `INSERT INTO app_inbox (m_id, m_source, m_key, m_aggregate, m_type, m_body, m_headers, m_correlation)
VALUES (@id, 'orders', 'k1', 'agg', 'type', '{"n": 1}', '{"h": "v"}', 'corr')`,
    params: ['id'],
  },
  renamedRow: {
    text: 'SELECT m_state AS state, m_last_error AS last_error FROM app_inbox WHERE m_id = @id',
    params: ['id'],
  },
} as const satisfies Record<string, HarnessStatement>;

interface HarnessStatement {
  readonly text: string;
  readonly params: readonly string[];
}
