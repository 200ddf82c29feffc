import type { Clock, NewOutboxMessage, OutboxState } from '@queuebox/core';
import type postgres from 'postgres';
import type { TableNames } from '../src/schema/table-names.js';

/**
 * Test support for the outbox store tests: an app clock the test can move or pin, and raw access
 * to the rows (by the mapped column names) to set up states and observe what the store wrote.
 */
export class TestClock implements Clock {
  // JS time has millisecond resolution, the DB microseconds: a row inserted (DEFAULT
  // CURRENT_TIMESTAMP) within the same millisecond as the claim would not be due yet. The
  // lead keeps the tests off that boundary; the store itself rightly claims such a row one
  // poll later.
  private static readonly LEAD_MS = 2;
  private offsetMs = TestClock.LEAD_MS;
  private pinned: Date | null = null;

  now(): Date {
    return this.pinned ?? new Date(Date.now() + this.offsetMs);
  }

  /** Moves the app clock relative to the real (and DB) clock. */
  shift(ms: number): void {
    this.offsetMs += ms;
  }

  pin(at: Date): void {
    this.pinned = at;
  }

  reset(): void {
    this.offsetMs = TestClock.LEAD_MS;
    this.pinned = null;
  }
}

export interface RawOutboxRow {
  readonly id: string;
  readonly topic: string;
  readonly key: string | null;
  readonly state: OutboxState;
  readonly attempt: number;
  readonly maxAttempts: number;
  readonly headers: unknown;
  readonly payload: unknown;
  readonly aggregateType: string | null;
  readonly scheduledAt: Date;
  readonly createdAt: Date;
  readonly updatedAt: Date;
  readonly claimedAt: Date | null;
  readonly claimToken: string | null;
  readonly leaseExpiresAt: Date | null;
  readonly lastError: string | null;
  readonly sequence: string;
}

export class OutboxRows {
  constructor(
    private readonly sql: postgres.Sql,
    private readonly tables: TableNames,
  ) {}

  private get c() {
    return this.tables.outboxColumns;
  }

  async clear(): Promise<void> {
    await this.sql.unsafe(`TRUNCATE ${this.tables.outbox}`);
  }

  async all(): Promise<RawOutboxRow[]> {
    const c = this.c;
    return this.sql.unsafe<RawOutboxRow[]>(
      `SELECT ${c.id}::text AS "id", ${c.topic} AS "topic", ${c.key} AS "key", ${c.state} AS "state",
              ${c.attempt} AS "attempt", ${c.maxAttempts} AS "maxAttempts", ${c.headers} AS "headers",
              ${c.payload} AS "payload", ${c.aggregateType} AS "aggregateType",
              ${c.scheduledAt} AS "scheduledAt", ${c.createdAt} AS "createdAt", ${c.updatedAt} AS "updatedAt",
              ${c.claimedAt} AS "claimedAt", ${c.claimToken}::text AS "claimToken",
              ${c.leaseExpiresAt} AS "leaseExpiresAt", ${c.lastError} AS "lastError", ${c.sequence}::text AS "sequence"
       FROM ${this.tables.outbox} ORDER BY ${c.sequence}`,
    );
  }

  async get(id: string): Promise<RawOutboxRow> {
    const row = (await this.all()).find((r) => r.id === id);
    if (!row) throw new Error(`no outbox row ${id}`);
    return row;
  }

  /** Inserts through raw SQL with DB defaults, returning the ids in sequence order. */
  async insertRaw(
    rows: readonly {
      topic?: string;
      key?: string | null;
      state?: OutboxState;
      scheduledAt?: Date;
    }[],
  ): Promise<string[]> {
    const c = this.c;
    const ids: string[] = [];
    for (const row of rows) {
      const [inserted] = await this.sql.unsafe<{ id: string }[]>(
        `INSERT INTO ${this.tables.outbox} (${c.topic}, ${c.key}, ${c.payload}, ${c.state}, ${c.scheduledAt})
         VALUES ($1, $2, '{"n":1}'::jsonb, $3, COALESCE($4::timestamptz, CURRENT_TIMESTAMP)) RETURNING ${c.id}::text AS "id"`,
        [
          row.topic ?? 'test.topic',
          row.key ?? null,
          row.state ?? 'pending',
          row.scheduledAt ?? null,
        ],
      );
      ids.push(inserted!.id);
    }
    return ids;
  }

  async setState(id: string, state: OutboxState): Promise<void> {
    await this.sql.unsafe(
      `UPDATE ${this.tables.outbox} SET ${this.c.state} = $2 WHERE ${this.c.id} = $1`,
      [id, state],
    );
  }

  /** Puts the lease of a row in the past on the DB clock. */
  async expireLease(id: string): Promise<void> {
    await this.sql.unsafe(
      `UPDATE ${this.tables.outbox} SET ${this.c.leaseExpiresAt} = clock_timestamp() - interval '1 second' WHERE ${this.c.id} = $1`,
      [id],
    );
  }

  async nullLease(id: string): Promise<void> {
    await this.sql.unsafe(
      `UPDATE ${this.tables.outbox} SET ${this.c.leaseExpiresAt} = NULL WHERE ${this.c.id} = $1`,
      [id],
    );
  }

  async dbNow(): Promise<Date> {
    const [row] = await this.sql<{ now: Date }[]>`SELECT clock_timestamp() AS now`;
    return row!.now;
  }

  async processingKeys(): Promise<{ key: string; n: number }[]> {
    const c = this.c;
    return this.sql.unsafe(
      `SELECT ${c.key} AS "key", count(*)::int AS "n" FROM ${this.tables.outbox}
       WHERE ${c.state} = 'processing' AND ${c.key} IS NOT NULL AND ${c.key} <> '' GROUP BY ${c.key}`,
    );
  }
}

export function message(
  topic: string,
  key: string | null = null,
  extra: Partial<NewOutboxMessage> = {},
): NewOutboxMessage {
  return { topic, key, payload: { topic, key }, ...extra };
}
