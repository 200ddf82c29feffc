import type { NewOutboxMessage } from '@queuebox/core';
import type postgres from 'postgres';
import { runCached } from '../connection/run-statement.js';
import type { TableNames } from '../schema/table-names.js';

/**
 * Multi-row insert: one statement whatever the batch size (each column is one array parameter),
 * so the text is prepared once. Rows are inserted in array order (ORDER BY ordinality), so the
 * database assigns `sequence` in that order and the rows of one key deliver in it; `sequence`,
 * `state`, `attempt`, `created_at` and `updated_at` are left to their column defaults.
 *
 * The optional fields fall back to the schema's defaults (spec §3.2: gen_random_uuid(), '{}',
 * 5, CURRENT_TIMESTAMP). They are spelled out because one prepared statement cannot say DEFAULT
 * for some rows and a value for others.
 */
export function insertStatement(tables: TableNames): string {
  const c = tables.outboxColumns;
  return `INSERT INTO ${tables.outbox}
  (${c.id}, ${c.topic}, ${c.key}, ${c.aggregateType}, ${c.payload}, ${c.headers}, ${c.maxAttempts}, ${c.scheduledAt})
SELECT COALESCE(m.id, gen_random_uuid()), m.topic, m.message_key, m.aggregate_type, m.payload::jsonb,
       COALESCE(m.headers::jsonb, '{}'::jsonb), COALESCE(m.max_attempts, 5), COALESCE(m.scheduled_at, CURRENT_TIMESTAMP)
FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::integer[], $8::timestamptz[])
  WITH ORDINALITY AS m(id, topic, message_key, aggregate_type, payload, headers, max_attempts, scheduled_at, ord)
ORDER BY m.ord`;
}

export function createInsert(sql: postgres.Sql, tables: TableNames) {
  const text = insertStatement(tables);
  return async function insert(messages: readonly NewOutboxMessage[]): Promise<void> {
    if (messages.length === 0) return;
    // JSON goes over as text and is cast in SQL, so a payload is stored exactly as serialized
    // here whatever array serialization the driver would pick for jsonb[].
    await runCached(sql, text, [
      messages.map((m) => m.id ?? null),
      messages.map((m) => m.topic),
      messages.map((m) => m.key ?? null),
      messages.map((m) => m.aggregateType ?? null),
      messages.map((m) => JSON.stringify(m.payload)),
      messages.map((m) => (m.headers === undefined ? null : JSON.stringify(m.headers))),
      messages.map((m) => m.maxAttempts ?? null),
      messages.map((m) => m.scheduledAt ?? null),
    ]);
  };
}
