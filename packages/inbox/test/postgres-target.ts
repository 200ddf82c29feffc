import { randomUUID } from 'node:crypto';
import { silentLogger } from '@queuebox/core';
import { runMigrations } from '@queuebox/postgres';
import { createFreshDatabase, type ServiceLookup } from '@queuebox/testing';
import pg from 'pg';
import postgres from 'postgres';
import { fromPg, fromPostgresJs, type InboxConnectionSource } from '../src/index.js';
import type { InboxRowState, WorkerHarness, WorkerTarget } from './contract/harness.js';

export type PostgresAdapter = 'fromPg' | 'fromPostgresJs';

/** A fresh PostgreSQL database migrated by QueueBox, the worker on it through `adapter`. */
export function postgresTarget(pgLookup: ServiceLookup, adapter: PostgresAdapter): WorkerTarget {
  return {
    label: `PostgreSQL through ${adapter}`,
    skip: !pgLookup.available && pgLookup.reason,
    async open() {
      if (!pgLookup.available) throw new Error(`PostgreSQL is not available: ${pgLookup.reason}`);
      const db = await createFreshDatabase(pgLookup.url);
      await runMigrations(db.sql, { logger: silentLogger });
      await db.sql`CREATE TABLE work (source text, message_id uuid, note text)`;
      await db.sql.unsafe(RENAMED_DDL);
      let connections: InboxConnectionSource;
      let end: () => Promise<void>;
      if (adapter === 'fromPg') {
        const pool = new pg.Pool({ connectionString: db.url, max: 12 });
        connections = fromPg(pool);
        end = () => pool.end();
      } else {
        const sql = postgres(db.url, { max: 12, onnotice: () => undefined });
        connections = fromPostgresJs(sql);
        end = () => sql.end({ timeout: 5 });
      }
      const harness: WorkerHarness = {
        dialect: 'postgresql',
        connections,
        insertWork: 'INSERT INTO work (source, message_id, note) VALUES ($1, $2, $3)',
        async insertPull(row = {}) {
          const id = randomUUID();
          await db.sql.unsafe(
            `INSERT INTO inbox (id, source, idempotency_key, aggregate_id, event_type, payload, headers,
               correlation_id, consumption, state, created_at, scheduled_at)
             VALUES ($1, $2, $3, $4, $5, $6::text::jsonb, $7::text::jsonb, $8, 'pull', 'pending', clock_timestamp(),
               clock_timestamp() + $9::bigint * interval '1 millisecond')`,
            [
              id,
              row.source ?? 'orders',
              `key-${id}`,
              row.aggregateId ?? null,
              row.eventType ?? null,
              row.payloadJson ?? JSON.stringify(row.payload ?? { n: 1 }),
              JSON.stringify(row.headers ?? {}),
              row.correlationId ?? null,
              row.delayMs ?? 0,
            ],
          );
          return id;
        },
        async rowOf(id) {
          const [row] = await db.sql<InboxRowState[]>`SELECT id, state, attempt, last_error,
            claim_token, scheduled_at, processed_at FROM inbox WHERE id = ${id}`;
          return row!;
        },
        work: (source) =>
          db.sql<{ message_id: string; note: string }[]>`SELECT message_id, note FROM work
            WHERE source = ${source} ORDER BY note`.then((rows) => [...rows]),
        async setAttempt(id, attempt) {
          await db.sql`UPDATE inbox SET attempt = ${attempt} WHERE id = ${id}`;
        },
        async stealClaim(id) {
          await db.sql`UPDATE inbox SET claim_token = gen_random_uuid() WHERE id = ${id}`;
        },
        async processing(source) {
          const [held] = await db.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM inbox
            WHERE source = ${source} AND state = 'processing'`;
          return held!.n;
        },
        async insertRenamed(id) {
          await db.sql.unsafe(
            `INSERT INTO app_inbox (m_id, m_source, m_key, m_aggregate, m_type, m_body, m_headers, m_correlation)
             VALUES ($1, 'orders', 'k1', 'agg', 'type', '{"n": 1}', '{"h": "v"}', 'corr')`,
            [id],
          );
        },
        async renamedRow(id) {
          const [row] = await db.sql<{ state: string; last_error: string | null }[]>`
            SELECT m_state AS state, m_last_error AS last_error FROM app_inbox WHERE m_id = ${id}`;
          return row!;
        },
        async close() {
          await end();
          await db.drop();
        },
      };
      return harness;
    },
  };
}

const RENAMED_DDL = `CREATE TABLE app_inbox (
  m_id UUID PRIMARY KEY,
  m_source VARCHAR(255) NOT NULL,
  m_key VARCHAR(255) NOT NULL,
  m_aggregate VARCHAR(255),
  m_type VARCHAR(255),
  m_body JSONB NOT NULL,
  m_headers JSONB NOT NULL DEFAULT '{}',
  m_correlation VARCHAR(128),
  m_consumption VARCHAR(4) NOT NULL DEFAULT 'pull',
  m_state VARCHAR(50) NOT NULL DEFAULT 'pending',
  m_created_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp(),
  m_processed_at TIMESTAMPTZ,
  m_scheduled_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp(),
  m_attempt INT NOT NULL DEFAULT 0,
  m_last_error TEXT,
  m_claimed_at TIMESTAMPTZ,
  m_claim_token UUID,
  m_lease_expires_at TIMESTAMPTZ
)`;
