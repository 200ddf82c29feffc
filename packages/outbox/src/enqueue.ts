import { randomUUID } from 'node:crypto';
import { postgresOutboxInsert, postgresOutboxInsertOne } from '@queuebox/core';
import { runnerFor, type OutboxHandle } from './handles.js';
import { toRow, type OutboxMessage, type OutboxRow } from './message.js';
import { pgArrayLiteral } from './pg-array.js';
import { resolveSchema, type OutboxSchema } from './schema.js';
import { ROWS_PER_REQUEST, sqlServerInsert, sqlServerNames } from './sql/sqlserver.js';

export interface OutboxOptions {
  /** The outbox's table and column names, when they are not QueueBox's defaults (spec §3.6). */
  readonly schema?: OutboxSchema;
}

/** `enqueue` and `enqueueMany` bound to one schema, with the statement built once. */
export interface Outbox {
  enqueue(db: OutboxHandle, message: OutboxMessage): Promise<string>;
  enqueueMany(db: OutboxHandle, messages: readonly OutboxMessage[]): Promise<string[]>;
}

export function createOutbox(options: OutboxOptions = {}): Outbox {
  const names = resolveSchema(options.schema);
  const JSON_ARRAY = { payloads: 'json-array' } as const;
  const text = postgresOutboxInsert(names, undefined, JSON_ARRAY);
  const knexText = postgresOutboxInsert(names, () => '?', JSON_ARRAY);
  const oneText = postgresOutboxInsertOne(names);
  const oneKnexText = postgresOutboxInsertOne(names, () => '?');
  const ssNames = sqlServerNames(names);
  async function enqueueMany(db: OutboxHandle, messages: readonly OutboxMessage[]) {
    if (!Array.isArray(messages)) throw new TypeError('enqueueMany needs an array of messages.');
    const runner = runnerFor(db);
    const list: readonly OutboxMessage[] = messages;
    const rows = list.map((m, i) => toRow(m, randomUUID, `Message ${i}`));
    if (rows.length === 0) return [];
    if (runner.dialect === 'sqlserver') {
      for (let at = 0; at < rows.length; at += ROWS_PER_REQUEST) {
        await runner.run(sqlServerInsert(ssNames, rows.slice(at, at + ROWS_PER_REQUEST)));
      }
    } else await runner.run(text, knexText, columns(rows));
    return rows.map((row) => row.id);
  }
  return {
    async enqueue(db, message) {
      const runner = runnerFor(db);
      const row = toRow(message, randomUUID);
      if (runner.dialect === 'sqlserver') {
        await runner.run(sqlServerInsert(ssNames, [row]));
        return row.id;
      }
      await runner.run(oneText, oneKnexText, [
        row.id,
        row.topic,
        row.key,
        row.aggregateType,
        row.payload,
        row.headers,
        row.maxAttempts,
        row.scheduledAt,
      ]);
      return row.id;
    },
    enqueueMany,
  };
}

function columns(rows: readonly OutboxRow[]): string[] {
  const column = (pick: (row: OutboxRow) => string | null) => pgArrayLiteral(rows.map(pick));
  return [
    column((r) => r.id),
    column((r) => r.topic),
    column((r) => r.key),
    column((r) => r.aggregateType),
    // One JSON array of the payloads: each is checked JSON text, so joining them is JSON.
    `[${rows.map((r) => r.payload).join(',')}]`,
    column((r) => r.headers),
    column((r) => r.maxAttempts),
    column((r) => r.scheduledAt),
  ];
}

let defaultOutbox: Outbox | undefined;
const outboxFor = (options?: OutboxOptions) =>
  options === undefined ? (defaultOutbox ??= createOutbox()) : createOutbox(options);

/**
 * Writes one outbox row on `db`, the caller's own handle, so it commits or rolls back with the
 * caller's transaction. Returns the row id.
 */
export function enqueue(
  db: OutboxHandle,
  message: OutboxMessage,
  options?: OutboxOptions,
): Promise<string> {
  return outboxFor(options).enqueue(db, message);
}

/** Writes several outbox rows in one statement, in array order; returns their ids in that order. */
export function enqueueMany(
  db: OutboxHandle,
  messages: readonly OutboxMessage[],
  options?: OutboxOptions,
): Promise<string[]> {
  return outboxFor(options).enqueueMany(db, messages);
}
