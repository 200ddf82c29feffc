import type { InboxSchema } from '../schema.js';

/** The schema's names, each quoted for the dialect's SQL. */
export type QuotedSchema = Record<keyof InboxSchema, string>;

/**
 * Quotes every name of `schema` with `quote`. Safe without escaping the closing quote: every
 * name passed the plain-identifier rule (schema.ts).
 */
export function quoteAll(schema: InboxSchema, quote: (name: string) => string): QuotedSchema {
  const quoted = {} as QuotedSchema;
  for (const key of Object.keys(schema) as (keyof InboxSchema)[]) quoted[key] = quote(schema[key]);
  return quoted;
}

/**
 * The claim's order of the rows of alias `a`. `strict`: an aggregate's messages run in receipt
 * order (created_at, id), and one waiting for its retry (or its delay) holds back the later
 * ones. Without it (the reference's rule) the order is scheduled_at, created_at, id, so a retry
 * gives up its place in its aggregate.
 */
export function claimOrder(q: QuotedSchema, strict: boolean): (a: string) => string {
  return (a) =>
    strict
      ? `${a}.${q.createdAt}, ${a}.${q.id}`
      : `${a}.${q.scheduledAt}, ${a}.${q.createdAt}, ${a}.${q.id}`;
}
