import {
  JsonPayload,
  type ClaimedOutboxMessage,
  type Headers,
  type OutboxState,
} from '@queuebox/core';
import type { TableNames } from '../schema/table-names.js';

/**
 * The columns a claim returns, read as arrays in this order (postgres.js `.values()`), so no
 * object with named keys is built per row and the order of `ClaimedValues` is the contract.
 * `sequence` travels as text because postgres.js would otherwise hand back int8 as a string or
 * a number depending on pool options. `payload` travels as the bytes of `jsonb`'s own text
 * output in the client encoding (UTF-8 for postgres.js), exactly what the text form of the
 * column would send: `textsend` makes them a `bytea`, which postgres.js reads in binary as a
 * Buffer of those bytes. The publisher hands them to the client as they came, so no payload is
 * decoded into a string and encoded back to the same bytes, and nothing parses it: postgres.js
 * would turn 12345678901234567890 into 12345678901234567000.
 */
export function claimedColumns(tables: TableNames, alias: string): string {
  const c = tables.outboxColumns;
  return [
    `${alias}.${c.id}::text`,
    `${alias}.${c.topic}`,
    `${alias}.${c.key}`,
    `${alias}.${c.aggregateType}`,
    `textsend(${alias}.${c.payload}::text)`,
    `${alias}.${c.headers}`,
    `${alias}.${c.state}`,
    `${alias}.${c.attempt}`,
    `${alias}.${c.maxAttempts}`,
    `${alias}.${c.scheduledAt}`,
    `${alias}.${c.createdAt}`,
    `${alias}.${c.sequence}::text`,
    `${alias}.${c.lastError}`,
    `${alias}.${c.claimToken}::text`,
  ].join(', ');
}

/** One claimed row as postgres.js `.values()` reads `claimedColumns`. */
export type ClaimedValues = readonly [
  id: string,
  topic: string,
  key: string | null,
  aggregateType: string | null,
  payload: Uint8Array,
  headers: Headers | null,
  state: string,
  attempt: number,
  maxAttempts: number,
  scheduledAt: Date,
  createdAt: Date,
  sequence: string | null,
  lastError: string | null,
  claimToken: string,
];

export function toClaimedMessage(row: ClaimedValues): ClaimedOutboxMessage {
  return {
    id: row[0],
    topic: row[1],
    key: row[2],
    aggregateType: row[3],
    payload: JsonPayload.fromBytes(row[4]),
    headers: row[5] ?? {},
    state: row[6] as OutboxState,
    attempt: row[7],
    maxAttempts: row[8],
    scheduledAt: row[9],
    createdAt: row[10],
    sequence: row[11] === null ? null : BigInt(row[11]),
    lastError: row[12],
    claimToken: row[13],
  };
}

/**
 * Spec §4.2: processing order is (scheduled_at, created_at); UPDATE … RETURNING has no order.
 * `sequence` breaks the remaining ties so the order is total (timestamps reach JS in ms).
 */
export function byScheduleThenCreation(a: ClaimedOutboxMessage, b: ClaimedOutboxMessage): number {
  return (
    a.scheduledAt.getTime() - b.scheduledAt.getTime() ||
    a.createdAt.getTime() - b.createdAt.getTime() ||
    compareSequence(a.sequence, b.sequence)
  );
}

function compareSequence(a: bigint | null, b: bigint | null): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  return a < b ? -1 : 1;
}
