import type postgres from 'postgres';
import type { Param } from './run-statement.js';
import { abandon, answerBoundMs, reserveWithin, settledWithin } from './reserved-connection.js';

/** One statement of a pipelined transaction; `prepare` keeps a named plan per connection. */
export interface PipelinedStatement {
  readonly text: string;
  readonly params?: readonly Param[];
  /** Rows as arrays of values in column order (postgres.js `.values()`), not objects. */
  readonly values?: boolean;
  /** `false`: planned on every call, for a text whose best plan moves with the table. */
  readonly prepare?: false;
}

const PREPARED = { prepare: true } as const;
const PLANNED_PER_CALL = { prepare: false } as const;

/**
 * Runs `BEGIN`, the statements and `COMMIT` on one reserved connection, all sent before any
 * answer is read: one round trip where `sql.begin` spends three (it waits for BEGIN's answer,
 * then for the statements, then sends COMMIT). That matters on the hot path: a claim or a
 * completion batch with a `SET LOCAL` planner guard costs the database and this process one
 * exchange instead of three.
 *
 * Every statement carries its own Sync, so PostgreSQL executes them strictly in order; when one
 * fails, the ones after it fail with "current transaction is aborted" and the COMMIT answers
 * ROLLBACK, so nothing of the transaction stays. The first error in statement order is thrown,
 * and a COMMIT that fails (the transaction did not happen) is thrown even when every statement
 * succeeded. Statements are named prepared statements unless marked `prepare: false` (planned on
 * every call): prepare only texts whose generic plan is right, or pin the plan with `SET LOCAL`
 * settings placed before them.
 *
 * A lost connection or a transaction that does not answer within the pool's connect timeout
 * fails (see reserved-connection.ts: postgres.js can leave either waiting for good).
 *
 * Returns the rows of every statement, in order; their shape is the caller's to state.
 */
export async function pipelinedTransaction(
  sql: postgres.Sql,
  statements: readonly PipelinedStatement[],
): Promise<unknown[][]> {
  const boundMs = answerBoundMs(sql);
  const connection = await reserveWithin(sql, boundMs);
  // `.then` (inside settledWithin) is what sends a postgres.js query, so they go out in order.
  const queries = [
    connection.unsafe('BEGIN', [], PREPARED),
    ...statements.map((s) => {
      const options = s.prepare === false ? PLANNED_PER_CALL : PREPARED;
      const query = connection.unsafe(s.text, (s.params ?? []) as Param[], options);
      return s.values === true ? query.values() : query;
    }),
    connection.unsafe('COMMIT', [], PREPARED),
  ];
  let settled: PromiseSettledResult<unknown>[];
  try {
    settled = await settledWithin(queries, boundMs);
  } catch (error: unknown) {
    await abandon(connection, queries, error);
    throw error;
  }
  connection.release();
  for (const outcome of settled) {
    if (outcome.status === 'rejected') throw outcome.reason;
  }
  const commit = settled[settled.length - 1] as PromiseFulfilledResult<postgres.RowList<[]>>;
  // COMMIT of a transaction that failed answers ROLLBACK without an error of its own.
  if (commit.value.command !== 'COMMIT') {
    throw new Error(`The transaction was rolled back (${commit.value.command}).`);
  }
  return settled
    .slice(1, -1)
    .map((outcome) => (outcome as PromiseFulfilledResult<unknown[]>).value);
}
