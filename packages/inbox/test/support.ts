import { randomUUID } from 'node:crypto';
import type { FreshDatabase } from '@queuebox/testing';
import pg from 'pg';
import postgres from 'postgres';
import {
  fromPg,
  fromPostgresJs,
  InboxWorker,
  type InboxConnectionSource,
  type InboxHandler,
  type InboxLogger,
  type InboxOptions,
} from '../src/index.js';

/** Test support for the pull worker's contract tests: rows, adapters, a recording logger. */

export interface PullRow {
  readonly source?: string;
  readonly aggregateId?: string | null;
  readonly eventType?: string | null;
  readonly payload?: unknown;
  readonly payloadJson?: string;
  readonly headers?: Record<string, string>;
  readonly correlationId?: string | null;
  readonly delayMs?: number;
  readonly table?: string;
}

/** Inserts one pull row as QueueBox stores it (spec §7.4); created_at in insertion order. */
export async function insertPull(db: FreshDatabase, row: PullRow = {}): Promise<string> {
  const id = randomUUID();
  await db.sql.unsafe(
    `INSERT INTO ${row.table ?? 'inbox'} (id, source, idempotency_key, aggregate_id, event_type, payload, headers,
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
}

export interface InboxRowState {
  id: string;
  state: string;
  attempt: number;
  last_error: string | null;
  claim_token: string | null;
  scheduled_at: Date;
  processed_at: Date | null;
}

export async function rowOf(db: FreshDatabase, id: string): Promise<InboxRowState> {
  const [row] = await db.sql<InboxRowState[]>`SELECT id, state, attempt, last_error, claim_token,
    scheduled_at, processed_at FROM inbox WHERE id = ${id}`;
  return row!;
}

export type AdapterKind = 'fromPg' | 'fromPostgresJs';

export interface Adapter {
  readonly source: InboxConnectionSource;
  close(): Promise<void>;
}

export function openAdapter(kind: AdapterKind, url: string): Adapter {
  if (kind === 'fromPg') {
    const pool = new pg.Pool({ connectionString: url, max: 12 });
    return { source: fromPg(pool), close: () => pool.end() };
  }
  const sql = postgres(url, { max: 12, onnotice: () => undefined });
  return { source: fromPostgresJs(sql), close: () => sql.end({ timeout: 5 }) };
}

/** Counts the claims a worker runs (for the polling-storm rule). */
export function countingClaims(source: InboxConnectionSource): {
  source: InboxConnectionSource;
  claims: () => number;
} {
  let claims = 0;
  return {
    claims: () => claims,
    source: {
      async connect() {
        const connection = await source.connect();
        return {
          ...connection,
          query(text, params) {
            if (text.startsWith('WITH pending_candidates')) claims++;
            return connection.query(text, params);
          },
        };
      },
    },
  };
}

export interface LogLine {
  readonly level: 'info' | 'warn' | 'error';
  readonly message: string;
  readonly fields: Readonly<Record<string, unknown>> | undefined;
}

export function recordingLogger(): InboxLogger & { lines: LogLine[]; messages(): string[] } {
  const lines: LogLine[] = [];
  const at = (level: LogLine['level']) => (message: string, fields?: Record<string, unknown>) =>
    void lines.push({ level, message, fields });
  return {
    lines,
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    messages: () => lines.map((l) => l.message),
  };
}

export interface Running {
  readonly done: Promise<void>;
  stop(): Promise<void>;
}

/** Starts `worker.run(handler, signal)`; `stop` aborts the signal and waits for run to settle. */
export function start(
  connections: InboxConnectionSource,
  options: InboxOptions,
  handler: InboxHandler,
): Running {
  const controller = new AbortController();
  const done = new InboxWorker(connections, options).run(handler, controller.signal);
  return {
    done,
    async stop() {
      controller.abort();
      await done;
    },
  };
}

export async function eventually<T>(
  check: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await sleep(20);
  }
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
