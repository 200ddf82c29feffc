import { tagAdapter } from './adapter-dialect.js';
import type { InboxConnection, InboxConnectionSource, InboxQueryResult } from './connections.js';

/**
 * The `mssql` package (SQL Server), as far as the worker uses it, typed by shape so the package
 * never imports it. Parameters are typed `never` (as in PgClientLike) so mssql's overloads fit.
 */
export interface MssqlResultLike {
  readonly recordset?: ArrayLike<unknown> | undefined;
  readonly rowsAffected?: readonly number[] | undefined;
}

/** An mssql `Request`: `input(name, value)` binds, `query(text)` runs the batch. */
export interface MssqlRequestLike {
  input(name: string, value: never): unknown;
  query(command: string): PromiseLike<MssqlResultLike>;
}

/** An mssql `Transaction`: one pooled connection from `begin()` to `commit()` or `rollback()`. */
export interface MssqlTransactionLike {
  begin(): PromiseLike<unknown>;
  commit(): PromiseLike<unknown>;
  rollback(): PromiseLike<unknown>;
  request(): MssqlRequestLike;
  /** mssql emits `rollback` with `true` when the server ended the transaction itself. */
  on?(event: 'rollback', listener: (aborted: boolean) => void): unknown;
}

/** The `mssql` module itself (the reference's first argument): its two constructors. */
export interface MssqlModuleLike {
  readonly Transaction: new (parent: never) => MssqlTransactionLike;
  readonly Request: new (parent: never) => MssqlRequestLike;
}

/** An mssql `ConnectionPool`, connected; the caller keeps owning it (the worker never closes it). */
export interface MssqlPoolLike {
  request(): MssqlRequestLike;
  transaction(): MssqlTransactionLike;
}

/** mssql's default, and the least the claim needs (spec §9.2): its lock wait is 10 s. */
const DEFAULT_REQUEST_TIMEOUT_MS = 15_000;
export const MIN_REQUEST_TIMEOUT_MS = 30_000;

/**
 * An mssql `ConnectionPool` as the worker's connections: `fromMssql(mssql, pool)` as in the
 * reference client (the driver module passed in for its `Transaction` and `Request`), or
 * `fromMssql(pool)`, which uses the pool's own `transaction()` and `request()`.
 *
 * A query outside a transaction runs on a pool request (any free connection: the claim and the
 * renewals need nothing more); `begin()` opens an mssql Transaction, which holds one connection
 * until `commit()` or `rollback()`, and the queries in between run on it. Parameters are bound
 * by position as `@p1..@pN`; `rows` is the first result set, `rowCount` the first count of
 * affected rows. The pool must allow requests of 30 s or more (`requestTimeout`; mssql's default
 * is 15 s): the claim's server-side lock wait is 10 s and must end on the server with Msg 51000,
 * because a request the driver abandons leaves the per-source lock held until its connection
 * resets. A pool that visibly allows less is refused here, with a RangeError.
 */
export function fromMssql(pool: MssqlPoolLike): InboxConnectionSource;
export function fromMssql(mssql: MssqlModuleLike, pool: MssqlPoolLike): InboxConnectionSource;
export function fromMssql(
  first: MssqlModuleLike | MssqlPoolLike,
  second?: MssqlPoolLike,
): InboxConnectionSource {
  const driver = second === undefined ? poolDriver(first) : moduleDriver(first, second);
  checkRequestTimeout(driver.pool);
  return tagAdapter(
    { connect: () => Promise.resolve(connection(driver)) },
    'fromMssql',
    'sqlserver',
  );
}

/** How one adapter makes requests and transactions: from the module or from the pool. */
interface Driver {
  readonly pool: object;
  poolRequest(): MssqlRequestLike;
  transaction(): MssqlTransactionLike;
  transactionRequest(transaction: MssqlTransactionLike): MssqlRequestLike;
}

const USAGE =
  'fromMssql(pool) or fromMssql(mssql, pool), pool being a connected mssql ConnectionPool';

function poolDriver(pool: unknown): Driver {
  const p = pool as Partial<MssqlPoolLike> | null;
  if (
    p === null ||
    typeof p !== 'object' ||
    typeof p.request !== 'function' ||
    typeof p.transaction !== 'function'
  ) {
    throw new TypeError(`fromMssql needs an mssql ConnectionPool: ${USAGE}.`);
  }
  const ready = p as MssqlPoolLike;
  return {
    pool: ready,
    poolRequest: () => ready.request(),
    transaction: () => ready.transaction(),
    transactionRequest: (transaction) => transaction.request(),
  };
}

function moduleDriver(mssql: unknown, pool: MssqlPoolLike): Driver {
  const m = mssql as Partial<MssqlModuleLike> | null;
  if (
    m === null ||
    (typeof m !== 'object' && typeof m !== 'function') ||
    typeof m.Transaction !== 'function' ||
    typeof m.Request !== 'function'
  ) {
    throw new TypeError(
      `fromMssql(mssql, pool) needs the mssql module (its Transaction and Request): ${USAGE}.`,
    );
  }
  if (pool === null || typeof pool !== 'object') {
    throw new TypeError(`fromMssql needs an mssql ConnectionPool: ${USAGE}.`);
  }
  // The constructors take the pool or the transaction; their parameter types are mssql's own.
  const Transaction = m.Transaction as unknown as new (parent: object) => MssqlTransactionLike;
  const Request = m.Request as unknown as new (parent: object) => MssqlRequestLike;
  return {
    pool,
    poolRequest: () => new Request(pool),
    transaction: () => new Transaction(pool),
    transactionRequest: (transaction) => new Request(transaction),
  };
}

/** The request timeout tedious will use, read as mssql reads it; undefined when not visible. */
function checkRequestTimeout(pool: object): void {
  const config = (pool as { config?: unknown }).config;
  if (config === null || typeof config !== 'object') return;
  const c = config as {
    requestTimeout?: unknown;
    timeout?: unknown;
    options?: { requestTimeout?: unknown } | null;
  };
  const given = c.options?.requestTimeout ?? c.requestTimeout ?? c.timeout;
  const timeout = given === undefined ? DEFAULT_REQUEST_TIMEOUT_MS : Number(given);
  // 0, a negative number and Infinity mean no timeout to tedious; NaN becomes mssql's default.
  const effective = Number.isNaN(timeout) ? DEFAULT_REQUEST_TIMEOUT_MS : timeout;
  if (effective > 0 && effective !== Infinity && effective < MIN_REQUEST_TIMEOUT_MS) {
    throw new RangeError(
      `The mssql pool's requestTimeout is ${effective} ms; the pull worker needs at least ${MIN_REQUEST_TIMEOUT_MS} ms (set requestTimeout: 30000 in the pool's config). The claim waits up to 10 s for its per-source lock, and a request the driver abandons leaves that lock held.`,
    );
  }
}

function connection(driver: Driver): InboxConnection {
  let transaction: MssqlTransactionLike | undefined;
  // Set when the server ended the transaction itself (XACT_ABORT, a deadlock victim). Until the
  // worker rolls back, every query and the commit fail: none may slip out of the transaction
  // and run in autocommit, where a completion would commit without the handler's writes.
  let aborted = false;
  let released = false;
  // mssql refuses a second request on a transaction while one runs (EREQINPROG), where pg
  // queues it: the transaction's queries, and its end, take turns here.
  let turn: Promise<unknown> = Promise.resolve();
  const inTurn = <T>(work: () => PromiseLike<T>): Promise<T> => {
    const next = turn.then(work, work);
    turn = next.catch(() => undefined);
    return next;
  };
  const run = async (request: MssqlRequestLike, text: string, params?: readonly unknown[]) => {
    const bind = request as unknown as { input(name: string, value: unknown): unknown };
    (params ?? []).forEach((value, i) => bind.input(`p${i + 1}`, value));
    return answer(await request.query(text));
  };
  const serverRolledBack = () =>
    new Error('The server rolled the transaction back (XACT_ABORT or a deadlock).');
  const end = (how: 'commit' | 'rollback') =>
    inTurn(async () => {
      const open = transaction;
      const wasAborted = aborted;
      transaction = undefined;
      aborted = false;
      if (open === undefined) throw new Error('No transaction is open.');
      if (wasAborted) {
        if (how === 'commit') throw serverRolledBack();
        return; // already rolled back, and mssql refuses a second rollback (EABORT)
      }
      await (how === 'commit' ? open.commit() : open.rollback());
    });
  return {
    query(text, params) {
      const open = transaction;
      if (open === undefined) return run(driver.poolRequest(), text, params);
      return inTurn(() => {
        if (aborted) return Promise.reject(serverRolledBack());
        return run(driver.transactionRequest(open), text, params);
      });
    },
    begin: () =>
      inTurn(async () => {
        if (transaction !== undefined) throw new Error('A transaction is open already.');
        const opened = driver.transaction();
        opened.on?.('rollback', (byServer) => {
          if (byServer && transaction === opened) aborted = true;
        });
        await opened.begin();
        transaction = opened;
      }),
    commit: () => end('commit'),
    rollback: () => end('rollback'),
    release() {
      if (released) return;
      released = true;
      // A transaction left open holds its connection (and its locks) until rolled back.
      if (transaction !== undefined) void end('rollback').catch(() => undefined);
    },
  };
}

function answer(result: MssqlResultLike): InboxQueryResult {
  return {
    rows: Array.from(result.recordset ?? []) as Record<string, unknown>[],
    rowCount: result.rowsAffected?.[0] ?? 0,
  };
}
