/**
 * What the broker end-to-end files read and write in the test database, once for every broker:
 * outbox rows inserted as an application does and watched until sent or dead, inbox rows found
 * by their idempotency key, and the readiness of one source. The database is passed as a getter:
 * a file builds these helpers where it declares them, before its beforeAll creates the database.
 */
import { createHash } from 'node:crypto';
import type { FreshDatabase } from '@queuebox/testing';
import { eventually } from './service.js';

export interface OutboxRow {
  id: string;
  state: string;
  attempt: number;
  last_error: string | null;
}

export interface InboxRow {
  id: string;
  source: string;
  idempotency_key: string;
  aggregate_id: string | null;
  event_type: string | null;
  payload: unknown;
  headers: Record<string, string>;
  correlation_id: string | null;
  state: string;
}

/** The `sha256:` key a broker source gives a message without one (spec §7.2). */
export const digest = (text: string) => `sha256:${createHash('sha256').update(text).digest('hex')}`;

export function outboxRows(db: () => FreshDatabase) {
  const insert = (
    topic: string,
    payload: object | string,
    extra: { key?: string; maxAttempts?: number; headers?: object } = {},
  ) =>
    db().sql.unsafe<{ id: string }[]>(
      `INSERT INTO outbox (topic, key, payload, headers, max_attempts)
       VALUES ($1, $2, $3::text::jsonb, $4::text::jsonb, $5) RETURNING id`,
      [
        topic,
        extra.key ?? null,
        typeof payload === 'string' ? payload : JSON.stringify(payload),
        JSON.stringify(extra.headers ?? {}),
        extra.maxAttempts ?? 5,
      ],
    );
  const row = async (id: string): Promise<OutboxRow> => {
    const [found] = await db().sql.unsafe<OutboxRow[]>(
      'SELECT id, state, attempt, last_error FROM outbox WHERE id = $1',
      [id],
    );
    if (found === undefined) throw new Error(`no outbox row ${id}`);
    return found;
  };
  const sent = (id: string, timeoutMs?: number) =>
    eventually(async () => (await row(id)).state === 'sent', timeoutMs);
  const dead = (id: string, timeoutMs?: number) =>
    eventually(async () => {
      const current = await row(id);
      return current.state === 'dead' ? current : undefined;
    }, timeoutMs);
  return { insert, row, sent, dead };
}

export function inboxRows(db: () => FreshDatabase) {
  const rows = (source: string) =>
    db().sql<InboxRow[]>`SELECT * FROM inbox WHERE source = ${source} ORDER BY created_at, id`;
  const rowByKey = (source: string, key: string, timeoutMs?: number) =>
    eventually(async () => {
      const [found] = await db().sql<InboxRow[]>`
        SELECT * FROM inbox WHERE source = ${source} AND idempotency_key = ${key}`;
      return found;
    }, timeoutMs);
  return { rows, rowByKey };
}

/** The first number a `SELECT count(*)::int AS n` query returns. */
export async function count(db: FreshDatabase, sql: string): Promise<number> {
  const [first] = await db.sql.unsafe<{ n: number }[]>(sql);
  return first?.n ?? 0;
}

/** Waits until no outbox row is left unsent. */
export const everyOutboxRowSent = (db: FreshDatabase, timeoutMs?: number) =>
  eventually(
    async () =>
      (await count(db, "SELECT count(*)::int AS n FROM outbox WHERE state <> 'sent'")) === 0,
    timeoutMs,
  );

/** `/health/ready`'s status and the status of one component. */
/** The components of `GET /health/ready`, by name, in the order the service lists them. */
export async function readyComponents(base: string): Promise<Record<string, { status: string }>> {
  const response = await fetch(`${base}/health/ready`);
  return ((await response.json()) as { components: Record<string, { status: string }> }).components;
}

export async function readiness(
  base: string,
  component: string,
): Promise<{ status: number; source: string | undefined }> {
  const response = await fetch(`${base}/health/ready`);
  const body = (await response.json()) as { components: Record<string, { status: string }> };
  return { status: response.status, source: body.components[component]?.status };
}
