/**
 * The inbox's table and column names as the pull worker uses them (the reference client's
 * `InboxSchema`, 19 names). They must equal QueueBox's `database.inboxTableName` and
 * `database.columnMapping.inbox` (spec §3.6): the worker reads and writes the same rows.
 */
export interface InboxSchema {
  readonly table: string;
  readonly id: string;
  readonly consumption: string;
  readonly source: string;
  readonly state: string;
  readonly scheduledAt: string;
  readonly createdAt: string;
  readonly claimToken: string;
  readonly claimedAt: string;
  readonly leaseExpiresAt: string;
  readonly processedAt: string;
  readonly attempt: string;
  readonly lastError: string;
  readonly idempotencyKey: string;
  readonly aggregateId: string;
  readonly eventType: string;
  readonly payload: string;
  readonly headers: string;
  readonly correlationId: string;
}

export const defaultSchema: InboxSchema = Object.freeze({
  table: 'inbox',
  id: 'id',
  consumption: 'consumption',
  source: 'source',
  state: 'state',
  scheduledAt: 'scheduled_at',
  createdAt: 'created_at',
  claimToken: 'claim_token',
  claimedAt: 'claimed_at',
  leaseExpiresAt: 'lease_expires_at',
  processedAt: 'processed_at',
  attempt: 'attempt',
  lastError: 'last_error',
  idempotencyKey: 'idempotency_key',
  aggregateId: 'aggregate_id',
  eventType: 'event_type',
  payload: 'payload',
  headers: 'headers',
  correlationId: 'correlation_id',
});

/**
 * Spec §9.3's rule for the pull clients: a letter or underscore, then up to 62 letters, digits,
 * `_` or `$`. Every name is also quoted, so the rule is what keeps text out of the SQL.
 */
const PLAIN_IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_$]{0,62}$/;

/** The default names with `overrides` on top, every name checked. */
export function resolveSchema(overrides: Partial<InboxSchema> = {}): InboxSchema {
  const schema = { ...defaultSchema } as Record<keyof InboxSchema, string>;
  for (const [key, name] of Object.entries(overrides)) {
    if (!(key in defaultSchema)) {
      throw new TypeError(`The schema has no name '${key}'.`);
    }
    if (name !== undefined) schema[key as keyof InboxSchema] = name;
  }
  for (const key of Object.keys(schema) as (keyof InboxSchema)[]) {
    const name: unknown = schema[key];
    if (typeof name !== 'string' || !PLAIN_IDENTIFIER.test(name)) {
      throw new TypeError(`The schema name '${key}' is not a plain SQL identifier.`);
    }
  }
  return Object.freeze(schema);
}
