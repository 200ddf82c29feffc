/**
 * A pool statement (not a reserved connection's) that settles within a bound.
 *
 * postgres.js 3.4.9 could leave a pool statement pending for good: a socket reset is seen as the
 * socket's 'error' (which fails the statements running then) and, one event-loop phase later,
 * its 'close'; a statement handed to that connection in between (a grouped insert leaves from a
 * setImmediate, exactly between the two) was written to the dead socket, and the close, being
 * "with an error", failed nothing more. Its unsent bytes then kept the connection's reconnects
 * from ever sending their startup (CONNECT_TIMEOUT for good). Seen in the RabbitMQ outage test:
 * ten deliveries neither acked nor requeued until the source stopped. patches/postgres@3.4.9.patch
 * fixes both in the driver. A database that stops answering (a blackholed network) still leaves
 * a statement pending, since postgres.js has no statement timeout of its own; hence this bound.
 *
 * The bound is twice `database.connectionTimeoutMs`, what a pipelined transaction gets
 * (reserved-connection.ts): one connect timeout to find or open a connection (a pool statement
 * gives no sign of when it has one, and a reconnect first waits out its backoff of up to a
 * second), one for the answer. A statement that did not answer in time fails as a transient
 * `database_unavailable`: the caller retries (a broker source requeues), so what the statement
 * did if it ran after all must be safe to do again (the inbox insert is: a second row with the
 * same key is a duplicate; the relay's writes are fenced by the claim token).
 */
import { settleWithin } from '@queuebox/core';
import type postgres from 'postgres';
import { answerBoundMs } from './reserved-connection.js';
import type { Param } from './run-statement.js';

export async function runBounded<T extends object>(
  sql: postgres.Sql,
  text: string,
  params: readonly Param[],
  options: { readonly prepare: boolean },
): Promise<postgres.RowList<T[]>> {
  const boundMs = statementBoundMs(sql);
  const query = sql.unsafe<T[]>(text, params as Param[], { prepare: options.prepare });
  // No cancel: postgres.js drops the promise of its cancel request (query.cancel() returns
  // null), so a cancel that fails (the database is unreachable) is an unhandled rejection.
  // A slow but live statement runs on; the caller's retry must be safe beside it.
  return settleWithin(
    query,
    boundMs,
    `a statement within ${boundMs} ms (twice database.connectionTimeoutMs)`,
  );
}

/** Twice the pool's connect timeout: a connection, then the answer. */
export function statementBoundMs(sql: postgres.Sql): number {
  return 2 * answerBoundMs(sql);
}
