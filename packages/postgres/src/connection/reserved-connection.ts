/**
 * Guards around postgres.js's reserved connections (3.4.9), which the pipelined transactions of
 * the hot path use. Under a connection loss postgres.js can leave a caller waiting for good:
 *
 * - a `reserve()` queued while a connection closes is handed to that connection's reconnect,
 *   which drops it (porsager/postgres#1195);
 * - statements queued in a reserved connection's own queue (behind one it must describe first)
 *   are never failed when the connection drops, and statements sent just as it drops may never
 *   answer either.
 *
 * Each of these stopped the outbox poller for good after one database outage (seen with the
 * fault proxy). So every wait is bounded by the pool's connect timeout (HikariCP's
 * `connectionTimeout`), a lost connection fails the transaction at once, and a connection is
 * handed back to the pool only when that cannot put a dead one into it.
 */
import { withTimeout, type PoolObserver } from '@queuebox/core';
import postgres from 'postgres';

/**
 * The pool observer of each pool (`open` sets it): postgres.js exposes no pool statistics, so
 * QueueBox's own borrows are what the pool metrics count.
 */
const observers = new WeakMap<postgres.Sql, PoolObserver>();

export function observePool(sql: postgres.Sql, observer: PoolObserver): void {
  observers.set(sql, observer);
}

/** The pool's connect timeout in ms (postgres.js counts seconds; 30 s when unset). */
export function answerBoundMs(sql: postgres.Sql): number {
  return Math.max(1, sql.options.connect_timeout ?? 30) * 1000;
}

/** `sql.reserve()`, failing after `boundMs`; a reserve that answers later goes straight back. */
export async function reserveWithin(
  sql: postgres.Sql,
  boundMs: number,
): Promise<postgres.ReservedSql> {
  const ended = observers.get(sql)?.borrow();
  const pending = sql.reserve();
  try {
    const connection = await withTimeout(
      pending,
      boundMs,
      () => new Error(`No database connection became free within ${boundMs} ms.`),
    );
    ended?.('acquired');
    return connection;
  } catch (error: unknown) {
    // HikariCP's getConnection fails with its timeout whether no connection became free or none
    // could be opened; a failed borrow counts as a timeout here too.
    ended?.('timeout');
    pending.then(
      (late) => late.release(),
      () => undefined,
    );
    throw error;
  }
}

/**
 * `Promise.allSettled` of a reserved connection's statements, except that a lost connection
 * throws at once and no answer within `boundMs` throws a `NoAnswerError`. A server error leaves
 * the connection in step: every later statement answers ("current transaction is aborted"),
 * so the caller can pick the first error in order.
 */
export function settledWithin(
  queries: readonly Promise<unknown>[],
  boundMs: number,
): Promise<PromiseSettledResult<unknown>[]> {
  return new Promise((resolve, reject) => {
    for (const query of queries) {
      query.catch((error: unknown) => {
        if (error instanceof Error && isConnectionLoss(error)) reject(error);
      });
    }
    withTimeout(Promise.allSettled(queries), boundMs, () => new NoAnswerError(boundMs)).then(
      resolve,
      reject,
    );
  });
}

export class NoAnswerError extends Error {
  override readonly name = 'NoAnswerError';
  constructor(boundMs: number) {
    super(`The database did not answer the transaction within ${boundMs} ms.`);
  }
}

/**
 * After `settledWithin` threw. postgres.js takes a lost connection back itself (to reconnect
 * it, maybe for another caller): releasing it as well would put the dead connection into the
 * open queue, where the next reserve would get it and wait. A connection that did not answer
 * in time is released only once its statements settle without a loss (it was alive, only slow).
 */
export async function abandon(
  connection: postgres.ReservedSql,
  queries: readonly Promise<unknown>[],
  error: unknown,
): Promise<void> {
  if (error instanceof NoAnswerError) {
    void Promise.allSettled(queries).then((late) => {
      if (
        !late.some((outcome) => outcome.status === 'rejected' && isConnectionLoss(outcome.reason))
      )
        connection.release();
    });
    return;
  }
  if (!isConnectionLoss(error)) {
    connection.release();
    return;
  }
  // The socket's 'close' comes after its 'error', in the close phase of the event loop; until
  // it has run, postgres.js counts the connection as reserved, and a reserve made meanwhile is
  // the kind it strands. Two check phases wait it out.
  for (let turn = 0; turn < 2; turn++) await new Promise((resolve) => setImmediate(resolve));
}

/** The codes postgres.js gives its own connection errors. */
const CONNECTION_CODES = new Set([
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
  'CONNECT_TIMEOUT',
]);

/** The socket failed (a Node system error names its syscall) or postgres.js gave it up. */
export function isConnectionLoss(error: unknown): boolean {
  if (!(error instanceof Error) || error instanceof postgres.PostgresError) return false;
  const { code, syscall } = error as { code?: unknown; syscall?: unknown };
  return typeof syscall === 'string' || (typeof code === 'string' && CONNECTION_CODES.has(code));
}
