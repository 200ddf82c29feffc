import { postgresOutboxInsert, type NewOutboxMessage } from '@queuebox/core';
import type postgres from 'postgres';
import { runCached } from '../connection/run-statement.js';
import type { TableNames } from '../schema/table-names.js';

/** The shared outbox insert of @queuebox/core, on the configured names (also what applications' own
 * `@queuebox/outbox` writes). */
export function insertStatement(tables: TableNames): string {
  return postgresOutboxInsert({ table: tables.outbox, columns: tables.outboxColumns });
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
