import {
  JsonPayload,
  type ClaimedOutboxMessage,
  type Headers,
  type OutboxState,
} from '@queuebox/core';
import type { TableNames } from '../schema/table-names.js';

/**
 * The columns a claim returns, aliased to the model's field names. Aliases are quoted camelCase
 * so the mapping does not depend on a column-name transform the pool might be given, and
 * `sequence` travels as text because postgres.js would otherwise hand back int8 as a string or
 * a number depending on pool options. `payload` travels as text too: `jsonb`'s own output, which
 * is what the publisher sends when no transform runs. postgres.js would parse it into JavaScript
 * values, where 12345678901234567890 becomes 12345678901234567000, and the publisher would then
 * serialise it again; the cast costs the database nothing (it is the text a jsonb column is sent
 * as anyway).
 */
export function claimedColumns(tables: TableNames, alias: string): string {
  const c = tables.outboxColumns;
  return [
    `${alias}.${c.id}::text AS "id"`,
    `${alias}.${c.topic} AS "topic"`,
    `${alias}.${c.key} AS "key"`,
    `${alias}.${c.aggregateType} AS "aggregateType"`,
    `${alias}.${c.payload}::text AS "payload"`,
    `${alias}.${c.headers} AS "headers"`,
    `${alias}.${c.state} AS "state"`,
    `${alias}.${c.attempt} AS "attempt"`,
    `${alias}.${c.maxAttempts} AS "maxAttempts"`,
    `${alias}.${c.scheduledAt} AS "scheduledAt"`,
    `${alias}.${c.createdAt} AS "createdAt"`,
    `${alias}.${c.sequence}::text AS "sequence"`,
    `${alias}.${c.lastError} AS "lastError"`,
    `${alias}.${c.claimToken}::text AS "claimToken"`,
  ].join(', ');
}

export interface ClaimedRow {
  readonly id: string;
  readonly topic: string;
  readonly key: string | null;
  readonly aggregateType: string | null;
  readonly payload: string;
  readonly headers: Headers | null;
  readonly state: string;
  readonly attempt: number;
  readonly maxAttempts: number;
  readonly scheduledAt: Date;
  readonly createdAt: Date;
  readonly sequence: string | null;
  readonly lastError: string | null;
  readonly claimToken: string;
}

export function toClaimedMessage(row: ClaimedRow): ClaimedOutboxMessage {
  return {
    id: row.id,
    topic: row.topic,
    key: row.key,
    aggregateType: row.aggregateType,
    payload: JsonPayload.fromText(row.payload),
    headers: row.headers ?? {},
    state: row.state as OutboxState,
    attempt: row.attempt,
    maxAttempts: row.maxAttempts,
    scheduledAt: row.scheduledAt,
    createdAt: row.createdAt,
    sequence: row.sequence === null ? null : BigInt(row.sequence),
    lastError: row.lastError,
    claimToken: row.claimToken,
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
