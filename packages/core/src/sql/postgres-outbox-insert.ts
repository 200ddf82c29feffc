import type { OutboxColumn } from '../config/app-config.js';

/** The outbox columns an application (or the relay) writes on insert (spec §3.2, §4.7). */
export const OUTBOX_INSERT_COLUMNS = [
  'id',
  'topic',
  'key',
  'aggregateType',
  'payload',
  'headers',
  'maxAttempts',
  'scheduledAt',
] as const satisfies readonly OutboxColumn[];

export type OutboxInsertColumn = (typeof OUTBOX_INSERT_COLUMNS)[number];

/** Table and column names, validated and ALREADY QUOTED, as they go into the SQL text. */
export interface OutboxInsertNames {
  readonly table: string;
  readonly columns: Readonly<Record<OutboxInsertColumn, string>>;
}

/**
 * The PostgreSQL outbox insert, written once for QueueBox's own store (the inbox relay) and for
 * `@queuebox/outbox` (applications' own transactions), so both write rows the same way.
 *
 * One statement whatever the number of rows: each column is one array parameter, in the order
 * of OUTBOX_INSERT_COLUMNS ($1 id uuid[], $2 topic, $3 key, $4 aggregate_type, $5 payload and
 * $6 headers as JSON text, $7 max_attempts integer[], $8 scheduled_at timestamptz[]), so the
 * text is prepared once. Rows are inserted in array order (ORDER BY ordinality), so the database
 * assigns `sequence` in that order and the rows of one key deliver in it; `sequence`, `state`,
 * `attempt`, `created_at` and `updated_at` are left to their column defaults.
 *
 * JSON goes over as text and is cast in SQL, so a payload is stored exactly as its text says
 * (jsonb keeps every digit of a number past 2^53) whatever the driver would do with jsonb[].
 * The optional fields fall back to the schema's defaults (gen_random_uuid(), '{}', 5,
 * CURRENT_TIMESTAMP); they are spelled out because one statement cannot say DEFAULT for some
 * rows and a value for others.
 *
 * `placeholder` renders the n-th parameter: `$n` for most drivers, `?` for knex.
 */
export function postgresOutboxInsert(
  names: OutboxInsertNames,
  placeholder: (index: number) => string = (index) => `$${index}`,
  options: OutboxInsertOptions = {},
): string {
  const p = placeholder;
  if (options.payloads === 'json-array') {
    return `INSERT INTO ${names.table}
  (${columnList(names)})
SELECT ${defaulted('m.id', 'm.topic', 'm.message_key', 'm.aggregate_type', 'm.payload', 'm.headers', 'm.max_attempts', 'm.scheduled_at', '')}
FROM ROWS FROM (unnest(${p(1)}::uuid[]), unnest(${p(2)}::text[]), unnest(${p(3)}::text[]), unnest(${p(4)}::text[]), jsonb_array_elements(${p(5)}::text::jsonb), unnest(${p(6)}::text[]), unnest(${p(7)}::integer[]), unnest(${p(8)}::timestamptz[]))
  WITH ORDINALITY AS m(id, topic, message_key, aggregate_type, payload, headers, max_attempts, scheduled_at, ord)
ORDER BY m.ord`;
  }
  return `INSERT INTO ${names.table}
  (${columnList(names)})
SELECT ${defaulted('m.id', 'm.topic', 'm.message_key', 'm.aggregate_type', 'm.payload', 'm.headers', 'm.max_attempts', 'm.scheduled_at')}
FROM unnest(${p(1)}::uuid[], ${p(2)}::text[], ${p(3)}::text[], ${p(4)}::text[], ${p(5)}::text[], ${p(6)}::text[], ${p(7)}::integer[], ${p(8)}::timestamptz[])
  WITH ORDINALITY AS m(id, topic, message_key, aggregate_type, payload, headers, max_attempts, scheduled_at, ord)
ORDER BY m.ord`;
}

export interface OutboxInsertOptions {
  /**
   * How `$5` carries the payloads: `text-array` (the default) a text[] of JSON texts;
   * `json-array` one JSON array whose elements are the payloads, in row order (`[` + the
   * texts joined by `,` + `]`), which needs no array-literal escaping of each document.
   */
  readonly payloads?: 'text-array' | 'json-array';
}

/**
 * The same insert for exactly one row, each value a plain parameter in the same order (text, or
 * null for the column default): what `enqueue` sends, because a one-row VALUES list plans and
 * runs cheaper than unnesting eight one-element arrays.
 */
export function postgresOutboxInsertOne(
  names: OutboxInsertNames,
  placeholder: (index: number) => string = (index) => `$${index}`,
): string {
  const p = placeholder;
  return `INSERT INTO ${names.table}
  (${columnList(names)})
VALUES (${defaulted(`${p(1)}::uuid`, `${p(2)}::text`, `${p(3)}::text`, `${p(4)}::text`, `${p(5)}::text`, `${p(6)}::text`, `${p(7)}::integer`, `${p(8)}::timestamptz`)})`;
}

function columnList(names: OutboxInsertNames): string {
  return OUTBOX_INSERT_COLUMNS.map((column) => names.columns[column]).join(', ');
}

/** The values in OUTBOX_INSERT_COLUMNS order, with the schema's defaults where one is null. */
function defaulted(
  id: string,
  topic: string,
  key: string,
  aggregateType: string,
  payload: string,
  headers: string,
  maxAttempts: string,
  scheduledAt: string,
  payloadCast = '::jsonb',
): string {
  return `COALESCE(${id}, gen_random_uuid()), ${topic}, ${key}, ${aggregateType}, ${payload}${payloadCast},
       COALESCE(${headers}::jsonb, '{}'::jsonb), COALESCE(${maxAttempts}, 5), COALESCE(${scheduledAt}, CURRENT_TIMESTAMP)`;
}
