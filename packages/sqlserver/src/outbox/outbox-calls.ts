import { QueueBoxError } from '@queuebox/core';
import type { SqlServerPool } from '../connection/pool.js';
import type { StatementResult } from '../connection/session.js';
import { sqlServerError } from '../classify-error.js';
import type { Statement } from '../sql/statement.js';
import type { outboxStatements } from './outbox-statements.js';

/** The bound statements of one store (outbox-statements.ts). */
export type OutboxStatements = ReturnType<typeof outboxStatements>;

/** SQL Server caps a request at 2100 parameters; fenced batches go in chunks below it. */
const ROWS_PER_FENCED_STATEMENT = 400;

/** How each part of the store reaches the pool: one statement, errors classified. */
export interface OutboxCalls {
  run<R>(action: string, query: Statement): Promise<StatementResult<R>>;
  /** The ids the statements returned, lower-cased (uniqueidentifiers come back upper-cased). */
  ids(action: string, queries: Statement[]): Promise<Set<string>>;
}

export function outboxCalls(pool: SqlServerPool): OutboxCalls {
  const run = async <R>(action: string, query: Statement) => {
    try {
      return await pool.withSession((session) => session.run<R>(query));
    } catch (error: unknown) {
      throw sqlServerError(error, action);
    }
  };
  return {
    run,
    async ids(action, queries) {
      const owned = new Set<string>();
      for (const query of queries) {
        for (const row of (await run<{ id: string }>(action, query)).rows)
          owned.add(row.id.toLowerCase());
      }
      return owned;
    },
  };
}

export function chunks<T>(items: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += ROWS_PER_FENCED_STATEMENT)
    out.push(items.slice(i, i + ROWS_PER_FENCED_STATEMENT));
  return out;
}

/** Callers compare ids as they passed them; SQL Server returns uniqueidentifiers upper-cased. */
export function asGiven(given: readonly { id: string }[], owned: Set<string>): Set<string> {
  return new Set(given.map((g) => g.id).filter((id) => owned.has(id.toLowerCase())));
}

export function checkLease(leaseMs: number): void {
  if (!Number.isInteger(leaseMs) || leaseMs < 1 || leaseMs > 2 ** 31 - 1) {
    throw new QueueBoxError(
      'internal',
      `A lease must be a whole number of ms in [1, 2^31-1], not ${leaseMs}.`,
    );
  }
}
