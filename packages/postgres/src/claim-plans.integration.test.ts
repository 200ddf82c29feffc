import { createFreshDatabase, requireService, type FreshDatabase } from '@queuebox/testing';
import type postgres from 'postgres';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { inboxRelaySql, relayCandidateWindow } from './inbox/inbox-relay-sql.js';
import { createLayout } from '../test/contracts/layouts.js';
import type { TableNames } from './schema/table-names.js';
import { candidateWindow, claimStatement, PLANNER_SETTINGS } from './outbox/outbox-claim.js';
import { GAUGES_SETTINGS, gaugesStatement } from './outbox/outbox-maintenance.js';

const pg = await requireService('postgres', 'postgres: claim plans');

/**
 * What the two claims cost, read from EXPLAIN ANALYZE of their statement texts under the
 * settings the stores send with them, as a generic plan (what a prepared statement settles on)
 * and as a custom one: a claim must read about its window, whatever the backlog of one key or
 * aggregate and whether or not the table has statistics. The bound is the largest number of
 * times one plan node ran, and the most rows one node returned over all its runs: a plan that
 * probes every backlog row, or joins every due row to the window, exceeds both by far.
 */
interface PlanNode {
  readonly 'Node Type': string;
  readonly 'Actual Rows': number;
  readonly 'Actual Loops': number;
  readonly Plans?: readonly PlanNode[];
}

interface Work {
  readonly claimed: number;
  readonly maxLoops: number;
  readonly maxRows: number;
}

function workOf(root: PlanNode): Work {
  let maxLoops = 0;
  let maxRows = 0;
  const visit = (node: PlanNode): void => {
    maxLoops = Math.max(maxLoops, node['Actual Loops']);
    maxRows = Math.max(maxRows, node['Actual Rows'] * node['Actual Loops']);
    node.Plans?.forEach(visit);
  };
  visit(root);
  return { claimed: root['Actual Rows'], maxLoops, maxRows };
}

let statementNumber = 0;

/** `work` on one connection inside a transaction that is rolled back, after `settings`. */
async function rolledBack<T>(
  sql: postgres.Sql,
  settings: readonly string[],
  work: (connection: postgres.ReservedSql) => Promise<T>,
): Promise<T> {
  const connection = await sql.reserve();
  try {
    await connection`BEGIN`;
    try {
      for (const setting of settings) await connection.unsafe(setting);
      return await work(connection);
    } finally {
      await connection`ROLLBACK`;
    }
  } finally {
    connection.release();
  }
}

/** EXPLAIN ANALYZE of `text` with SQL-literal `params`, rolled back. */
async function explainClaim(
  sql: postgres.Sql,
  settings: readonly string[],
  text: string,
  params: readonly string[],
  plan: 'generic' | 'custom',
): Promise<Work> {
  const name = `qb_claim_plan_${(statementNumber += 1)}`;
  return rolledBack(sql, settings, async (connection) => {
    // A prepared statement belongs to its connection, and only EXECUTE plans it.
    await connection.unsafe(`PREPARE ${name} AS ${text}`);
    try {
      await connection.unsafe(`SET LOCAL plan_cache_mode = force_${plan}_plan`);
      const [row] = await connection.unsafe<{ 'QUERY PLAN': [{ Plan: PlanNode }] }[]>(
        `EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE ${name}(${params.join(', ')})`,
      );
      return workOf(row!['QUERY PLAN'][0].Plan);
    } finally {
      await connection.unsafe(`DEALLOCATE ${name}`);
    }
  });
}

const appNow = () => `'${new Date(Date.now() + 1_000).toISOString()}'::timestamptz`;

/**
 * Under both plans a claim of 100 fills its batch while its loops stay in the hundreds, and,
 * where the rows read say so, the rows it reads too: it reads its window, not the backlog.
 */
async function expectWindowed(
  claim: (plan: 'generic' | 'custom') => Promise<Work>,
  { rowsChecked }: { rowsChecked: boolean },
): Promise<void> {
  for (const plan of ['generic', 'custom'] as const) {
    const work = await claim(plan);
    expect(work.claimed).toBe(100);
    expect(work.maxLoops).toBeLessThan(1_000);
    if (rowsChecked) expect(work.maxRows).toBeLessThan(2_000);
  }
}

describe.skipIf(!pg.available)('claim plans on PostgreSQL', () => {
  let db: FreshDatabase;
  let names: TableNames;

  beforeAll(async () => {
    if (!pg.available) return;
    db = await createFreshDatabase(pg.url);
    names = await createLayout(db.sql, 'default tables');
    // Statistics only when a test runs ANALYZE itself, even on a server with autovacuum on.
    await db.sql`ALTER TABLE inbox SET (autovacuum_enabled = false)`;
    await db.sql`ALTER TABLE outbox SET (autovacuum_enabled = false)`;
  });

  afterAll(async () => {
    await db?.drop();
  });

  beforeEach(async () => {
    await db.sql`TRUNCATE inbox, outbox`;
  });

  const relayClaim = (limit: number) => {
    const relay = inboxRelaySql(names);
    return (plan: 'generic' | 'custom') =>
      explainClaim(
        db.sql,
        [relay.claimSettings],
        relay.claim,
        [String(limit), String(relayCandidateWindow(limit)), appNow(), '60000'],
        plan,
      );
  };
  const outboxClaim = (limit: number) => (plan: 'generic' | 'custom') =>
    explainClaim(
      db.sql,
      [PLANNER_SETTINGS],
      claimStatement(names, candidateWindow(limit)),
      [appNow(), '60000', String(limit)],
      plan,
    );

  /** `rows` due push rows over `aggregates` aggregates, 1 ms apart, a day old. */
  const loadInbox = (rows: number, aggregates: number) => db.sql`
    INSERT INTO inbox (source, idempotency_key, aggregate_id, payload, created_at, scheduled_at)
    SELECT 'orders', 'k-' || i, 'agg-' || (i % ${aggregates}),
        jsonb_build_object('n', i, 'pad', repeat('x', 200)),
        clock_timestamp() - interval '1 day' + i * interval '1 millisecond',
        clock_timestamp() - interval '1 day' + i * interval '1 millisecond'
    FROM generate_series(1, ${rows}) AS i`;

  /** `rows` due outbox rows over `keys` keys, 1,000 per insert (one CURRENT_TIMESTAMP each). */
  const loadOutbox = async (
    rows: number,
    keys: number,
    scheduledAt = "now() - interval '1 day'",
  ) => {
    for (let start = 0; start < rows; start += 1000) {
      await db.sql.unsafe(
        `INSERT INTO outbox (topic, key, payload, scheduled_at)
         SELECT 't', 'k-' || (i % ${keys}), jsonb_build_object('n', i, 'pad', repeat('x', 200)),
             ${scheduledAt}
         FROM generate_series(${start}, ${Math.min(rows, start + 1000) - 1}) AS i ORDER BY i`,
      );
    }
  };

  // The never-analyzed cases first: no test before them runs ANALYZE.
  for (const analyzed of [false, true]) {
    const label = analyzed ? 'after ANALYZE' : 'never analyzed';

    it(`relay claim reads its window, not the backlog (20,000 due rows, ${label})`, async () => {
      await loadInbox(20_000, 200);
      if (analyzed) await db.sql`ANALYZE inbox`;
      await expectWindowed(relayClaim(100), { rowsChecked: true });
    });

    it(`outbox claim reads its window, not the backlog (20,000 due rows over 1,000 keys, ${label})`, async () => {
      await loadOutbox(20_000, 1_000);
      if (analyzed) await db.sql`ANALYZE outbox`;
      await expectWindowed(outboxClaim(100), { rowsChecked: true });
    });

    it(`outbox claim does not probe the backlog of a key whose head is in flight (${label})`, async () => {
      // Key k-0's head in flight, 5,000 of its rows due before 2,000 rows of other keys.
      await db.sql`INSERT INTO outbox (topic, key, payload, state, scheduled_at, claim_token, lease_expires_at)
        VALUES ('t', 'k-0', '{}', 'processing', now() - interval '3 days', gen_random_uuid(),
          clock_timestamp() + interval '1 hour')`;
      await loadOutbox(5_000, 1, "now() - interval '2 days'");
      await loadOutbox(2_000, 1_000);
      if (analyzed) await db.sql`ANALYZE outbox`;
      await expectWindowed(outboxClaim(100), { rowsChecked: false });
    });
  }

  /** Whether the plan of `text` after `settings`, in one rolled-back transaction, has a Gather. */
  const gathers = (settings: readonly string[], text: string): Promise<boolean> =>
    rolledBack(
      db.sql,
      [
        // Parallel plans made as cheap as they get, so only the statement's own setting stops one.
        'SET LOCAL parallel_setup_cost = 0',
        'SET LOCAL parallel_tuple_cost = 0',
        'SET LOCAL min_parallel_table_scan_size = 0',
        'SET LOCAL min_parallel_index_scan_size = 0',
        'SET LOCAL max_parallel_workers_per_gather = 2',
        ...settings,
      ],
      async (connection) => {
        const [row] = await connection.unsafe<{ 'QUERY PLAN': unknown }[]>(
          `EXPLAIN (FORMAT JSON) ${text}`,
        );
        return JSON.stringify(row!['QUERY PLAN']).includes('"Gather');
      },
    );

  it('the pending gauges scan without parallel workers, where the planner would use them', async () => {
    await loadOutbox(5_000, 1_000);
    await db.sql`ANALYZE outbox`;
    expect(await gathers([], gaugesStatement(names))).toBe(true);
    expect(await gathers([GAUGES_SETTINGS], gaugesStatement(names))).toBe(false);
  });
});
