/**
 * EXPLAIN ANALYZE of QueueBox's own claim and completion statements on the freshly loaded table
 * (100 000 pending rows before QueueBox starts), each in a transaction that is rolled back, so
 * the table is untouched. The statement texts come from the built @queuebox/postgres (dist), so
 * they are exactly what the measured QueueBox runs; if that module moved, the step is skipped and
 * says so.
 */
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';
import { DEFAULT_INBOX_COLUMNS, DEFAULT_OUTBOX_COLUMNS } from '@queuebox/core';
import { REPO_DIR, percentile } from '../lib/util.mjs';

/** The default column names, quoted as the statements' builders take them. */
const quoted = (columns) =>
  Object.fromEntries(Object.entries(columns).map(([field, name]) => [field, `"${name}"`]));

export const DEFAULT_TABLES = {
  outbox: '"outbox"',
  inbox: '"inbox"',
  outboxColumns: quoted(DEFAULT_OUTBOX_COLUMNS),
  inboxColumns: quoted(DEFAULT_INBOX_COLUMNS),
};

async function importDist(file) {
  return import(pathToFileURL(resolve(REPO_DIR, 'packages/postgres/dist', file)).href);
}

const literal = (value) => `'${String(value).replaceAll("'", "''")}'`;

/** Replaces $n placeholders (highest first, so $10 is not read as $1). */
function inline(text, params) {
  let out = text;
  for (let i = params.length; i >= 1; i -= 1) out = out.replaceAll(`$${i}`, params[i - 1]);
  return out;
}

function planSummary(plan) {
  const root = plan[0];
  return {
    executionMs: root['Execution Time'],
    planningMs: root['Planning Time'],
    sharedHit: root.Plan['Shared Hit Blocks'],
    sharedRead: root.Plan['Shared Read Blocks'],
  };
}

function nodeLines(node, depth = 0, out = []) {
  out.push(
    `${'  '.repeat(depth)}${node['Node Type']}${node['Index Name'] ? ` using ${node['Index Name']}` : ''}${node['Relation Name'] ? ` on ${node['Relation Name']}` : ''} (rows=${node['Actual Rows']} loops=${node['Actual Loops']} time=${node['Actual Total Time']} ms)`,
  );
  for (const child of node.Plans ?? []) nodeLines(child, depth + 1, out);
  return out;
}

/**
 * @param {import('postgres').Sql} sql
 * @param {{ batch?: number, repeats?: number }} options
 */
export async function explainOutboxClaim(sql, { batch = 100, repeats = 5 } = {}) {
  let claimModule;
  let completionModule;
  try {
    claimModule = await importDist('outbox/outbox-claim.js');
    completionModule = await importDist('outbox/outbox-completion.js');
  } catch (error) {
    return {
      skipped: `could not import the claim SQL from packages/postgres/dist: ${error.message}`,
    };
  }
  const window = claimModule.candidateWindow ? claimModule.candidateWindow(batch) : 256;
  const claimText = claimModule.claimStatement(DEFAULT_TABLES, window);
  const completeText = completionModule.completeStatement(DEFAULT_TABLES);
  const claims = [];
  const completes = [];
  let claimPlan = null;
  for (let i = 0; i < repeats; i += 1) {
    await sql
      .begin(async (tx) => {
        const at = literal(new Date().toISOString()) + '::timestamptz';
        // Each statement under the planner guard QueueBox sends in its transaction.
        await tx.unsafe(claimModule.PLANNER_SETTINGS);
        const claimSql = inline(claimText, [at, '300000', String(batch)]);
        const [{ 'QUERY PLAN': plan }] = await tx.unsafe(
          `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${claimSql}`,
        );
        claims.push(planSummary(plan));
        if (claimPlan === null) claimPlan = nodeLines(plan[0].Plan);
        // Claim for real (still inside the rolled-back transaction) to complete those rows.
        const rows = await tx.unsafe(claimSql);
        if (rows.length > 0) {
          const ids = `ARRAY[${rows.map((r) => literal(r.id)).join(',')}]::uuid[]`;
          const tokens = `ARRAY[${rows.map((r) => literal(r.claimToken ?? r.claim_token)).join(',')}]::uuid[]`;
          const kinds = `ARRAY[${rows.map(() => "'sent'").join(',')}]::text[]`;
          const delays = `ARRAY[${rows.map(() => '0').join(',')}]::float8[]`;
          const errors = `ARRAY[${rows.map(() => 'NULL').join(',')}]::text[]`;
          const completeSql = inline(completeText, [at, ids, tokens, kinds, delays, errors]);
          await tx.unsafe(completionModule.FENCED_WRITE_SETTINGS);
          const [{ 'QUERY PLAN': done }] = await tx.unsafe(
            `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${completeSql}`,
          );
          completes.push({ ...planSummary(done), rows: done[0].Plan['Actual Rows'] });
        }
        throw new Rollback();
      })
      .catch((error) => {
        if (!(error instanceof Rollback)) throw error;
      });
  }
  const stats = (list) => {
    const exec = list.map((x) => x.executionMs).sort((a, b) => a - b);
    return {
      runs: list.length,
      firstMs: list[0]?.executionMs ?? null,
      medianMs: percentile(exec, 50),
      planningMedianMs: percentile(
        list.map((x) => x.planningMs).sort((a, b) => a - b),
        50,
      ),
    };
  };
  return {
    batch,
    window,
    plannerGuards: [claimModule.PLANNER_SETTINGS, completionModule.FENCED_WRITE_SETTINGS],
    claim: stats(claims),
    complete: { ...stats(completes), rowsPerStatement: completes[0]?.rows ?? null },
    claimPlan,
  };
}

class Rollback extends Error {}
