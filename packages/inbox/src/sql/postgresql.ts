import type { InboxSchema } from '../schema.js';
import { claimOrder, quoteAll, type QuotedSchema } from './quoted-schema.js';
import { PARAMS, type InboxStatements, type StatementOptions } from './statement.js';

export type { InboxStatement, InboxStatements, StatementOptions } from './statement.js';

/**
 * The five pull statements of spec §9.1-9.2 on PostgreSQL, on validated names (quoted here).
 * These are THE statements: examples/pull/sql/postgresql/*.sql are these texts with the default
 * names (a test keeps them equal), so a worker in another language runs exactly what this one
 * runs. All times are the database clock, clock_timestamp(): now() stands still for a whole
 * transaction, and `complete` runs at the end of the handler's.
 */
export function postgresqlStatements(
  schema: InboxSchema,
  options: StatementOptions = {},
): InboxStatements {
  const q = quoteAll(schema, (name) => `"${name}"`);
  const t = q.table;
  // `(state = 'processing') IS TRUE` says what `state = 'processing'` says (both pass only a
  // processing row), but the planner cannot match it to the partial indexes on processing rows
  // (idx_inbox_pull_busy, idx_inbox_processing_claimed), so the row is found by its primary
  // key. With the plain clause, statistics taken while nothing was in flight make a full scan
  // of idx_inbox_pull_busy look cheapest, and that scan grows with every row claimed since
  // (with many rows claimed, completions ran an order of magnitude slower than by the key).
  // Built per statement, never by replacing text: a name may hold `$` (`a$ID`).
  const fenced = (id: number, token: number) => `WHERE ${q.id} = $${id}
  AND ${q.consumption} = 'pull'
  AND (${q.state} = 'processing') IS TRUE
  AND ${q.claimToken} = $${token}
  AND ${q.leaseExpiresAt} > clock_timestamp();`;
  return {
    claim: {
      text: claim(q, options.strictAggregateOrder === true),
      params: PARAMS.claim,
    },
    renew: {
      text: `UPDATE ${t}
SET ${q.leaseExpiresAt} = clock_timestamp() + $1::bigint * interval '1 millisecond'
${fenced(2, 3)}
`,
      params: PARAMS.renew,
    },
    complete: {
      text: `UPDATE ${t}
SET ${q.state} = 'processed',
    ${q.processedAt} = clock_timestamp(),
    ${q.claimToken} = NULL,
    ${q.leaseExpiresAt} = NULL
${fenced(1, 2)}
`,
      params: PARAMS.complete,
    },
    retry: {
      text: `UPDATE ${t}
SET ${q.state} = 'pending',
    ${q.scheduledAt} = clock_timestamp() + $1::bigint * interval '1 millisecond',
    ${q.attempt} = ${q.attempt} + 1,
    ${q.lastError} = $2,
    ${q.claimToken} = NULL,
    ${q.leaseExpiresAt} = NULL
${fenced(3, 4)}
`,
      params: PARAMS.retry,
    },
    dead: {
      text: `UPDATE ${t}
SET ${q.state} = 'dead',
    ${q.lastError} = $1,
    ${q.claimToken} = NULL,
    ${q.leaseExpiresAt} = NULL
${fenced(2, 3)}
`,
      params: PARAMS.dead,
    },
  };
}

function claim(q: QuotedSchema, strict: boolean): string {
  const order = claimOrder(q, strict);
  const earlier = (a: string) =>
    strict
      ? `
      AND NOT EXISTS (
          -- Strict order: no earlier message of the aggregate is still unfinished.
          SELECT 1
          FROM ${q.table} p
          WHERE p.${q.source} = $1
            AND p.${q.consumption} = 'pull'
            AND p.${q.state} IN ('pending', 'processing')
            AND p.${q.aggregateId} = ${a}.${q.aggregateId}
            AND (p.${q.createdAt}, p.${q.id}) < (${a}.${q.createdAt}, ${a}.${q.id}))`
      : '';
  const busy = (a: string, self: boolean) => `(${a}.${q.aggregateId} IS NULL OR NOT EXISTS (
          SELECT 1
          FROM ${q.table} b
          WHERE b.${q.source} = $1
            AND b.${q.consumption} = 'pull'
            AND b.${q.state} = 'processing'
            AND b.${q.aggregateId} = ${a}.${q.aggregateId}${self ? `\n            AND b.${q.id} <> ${a}.${q.id}` : ''}
            AND b.${q.leaseExpiresAt} > clock_timestamp()))`;
  const ready = (a: string) => `${a}.${q.source} = $1
      AND ${a}.${q.consumption} = 'pull'
      AND ((${a}.${q.state} = 'pending' AND ${a}.${q.scheduledAt} <= clock_timestamp())
           OR (${a}.${q.state} = 'processing' AND ${a}.${q.leaseExpiresAt} <= clock_timestamp()))`;
  const columns = (a: string) =>
    `${a}.${q.id}, ${a}.${q.aggregateId}, ${a}.${q.scheduledAt}, ${a}.${q.createdAt}`;
  return `WITH pending_candidates AS (
    -- (a) Due pending messages of the source, in schedule order, bounded.
    SELECT ${columns('c')}
    FROM ${q.table} c
    WHERE c.${q.source} = $1
      AND c.${q.consumption} = 'pull'
      AND c.${q.state} = 'pending'
      AND c.${q.scheduledAt} <= clock_timestamp()
    ORDER BY c.${q.scheduledAt}, c.${q.createdAt}, c.${q.id}
    LIMIT $4
), expired_candidates AS (
    -- (b) Messages whose claim lease ran out: taken over directly, with a new token.
    SELECT ${columns('c')}
    FROM ${q.table} c
    WHERE c.${q.source} = $1
      AND c.${q.consumption} = 'pull'
      AND c.${q.state} = 'processing'
      AND c.${q.leaseExpiresAt} <= clock_timestamp()
    ORDER BY c.${q.scheduledAt}, c.${q.createdAt}, c.${q.id}
    LIMIT $4
), ranked AS (
    -- The head of each aggregate among the candidates; a message without an aggregate is its
    -- own group.
    SELECT ${columns('r')},
           row_number() OVER (
               PARTITION BY COALESCE(r.${q.aggregateId}, '#' || r.${q.id}::text)
               ORDER BY ${order('r')}
           ) AS rank_in_aggregate
    FROM (SELECT * FROM pending_candidates UNION ALL SELECT * FROM expired_candidates) r
), eligible AS (
    -- Heads whose aggregate has no message of this source in flight under a live lease.
    SELECT e.${q.id}, e.${q.scheduledAt}, e.${q.createdAt}
    FROM ranked e
    WHERE e.rank_in_aggregate = 1
      AND ${busy('e', false)}${earlier('e')}
), locked AS (
    -- Lock on the base table and re-check the whole readiness predicate there: the CTEs above
    -- read a snapshot, and a row another worker claimed meanwhile must not pass. The batch
    -- limit counts locked rows only, so concurrent claims of one source divide the eligible
    -- heads between them instead of all taking the first \`batch\` and skipping each other's.
    -- The heads come in schedule order (OFFSET 0 keeps the subquery's order as the join's
    -- outer order; e's columns are the ones i has in this statement's snapshot), so the join
    -- stops once \`batch\` rows are locked: sorted after the join, every head (3 x batch) was
    -- looked up and re-checked first.
    SELECT i.${q.id}
    FROM ${q.table} i
    JOIN (SELECT * FROM eligible ORDER BY ${q.scheduledAt}, ${q.createdAt}, ${q.id} OFFSET 0) e
      ON e.${q.id} = i.${q.id}
    WHERE ${ready('i')}
      AND ${busy('i', true)}${earlier('i')}
    ORDER BY e.${q.scheduledAt}, e.${q.createdAt}, e.${q.id}
    LIMIT $2
    FOR UPDATE OF i SKIP LOCKED
)
UPDATE ${q.table} u
SET ${q.state} = 'processing',
    ${q.claimToken} = gen_random_uuid(),
    ${q.claimedAt} = clock_timestamp(),
    ${q.leaseExpiresAt} = clock_timestamp() + $3::bigint * interval '1 millisecond'
FROM locked l
WHERE u.${q.id} = l.${q.id}
  -- The predicate once more: if a concurrent claim changed the row after our lock check,
  -- PostgreSQL re-evaluates this WHERE on the newest row version (EvalPlanQual). Without it,
  -- two workers could both claim one row.
  AND ${ready('u').replaceAll('\n      ', '\n  ')}
  AND ${busy('u', true).replaceAll('\n      ', '\n  ')}${earlier('u').replaceAll('\n      ', '\n  ')}
RETURNING u.*;
`;
}
