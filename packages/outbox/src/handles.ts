/**
 * The caller's database handle, whichever client library it comes from. Nothing here imports a
 * driver: each client is recognised by its shape and driven through its own public way of
 * running SQL text with positional parameters, so the insert runs on the caller's connection,
 * inside the caller's transaction.
 */

import type { SqlServerStatement } from './sql/sqlserver.js';

type Params = readonly (string | null)[];

/*
 * The handle types are structural and loose on purpose: each library's own signatures are far
 * richer (overloads, generics), and a parameter typed `never` accepts them all under method
 * bivariance, so any real handle of the library fits without this package naming its types.
 * Inside, each is called through the one shape this package actually uses.
 */
type Call = (...args: unknown[]) => PromiseLike<unknown>;
const call = (fn: unknown, self: unknown, ...args: unknown[]): PromiseLike<unknown> =>
  Reflect.apply(fn as Call, self, args);

/** postgres.js: `sql` or the `tx` of `sql.begin(async (tx) => ...)`. */
export interface PostgresJsHandle {
  unsafe(query: string, parameters?: never): PromiseLike<unknown>;
}

/** pg: the `Client` (or pool client) you ran BEGIN on. A `Pool` is refused (see below). */
export interface PgClientHandle {
  query(text: string, values?: never): Promise<unknown>;
}

/** knex: the `trx` of `knex.transaction(async (trx) => ...)` (or knex itself, for autocommit). */
export interface KnexHandle {
  raw(sql: string, bindings?: never): PromiseLike<unknown>;
}

/** drizzle (PostgreSQL): the `tx` of `db.transaction(async (tx) => ...)` (or `db`). */
export interface DrizzleHandle {
  execute(query: never): PromiseLike<unknown>;
}

/** kysely: the `trx` of `db.transaction().execute(async (trx) => ...)` (or `db`). */
export interface KyselyHandle {
  executeQuery(query: never): Promise<unknown>;
}

/**
 * mssql (SQL Server): the `Transaction` you called `begin()` on. Its `request()` runs on the
 * transaction's connection. A `ConnectionPool` is refused (see below).
 */
export interface MssqlTransactionHandle {
  request(): unknown;
  commit(): PromiseLike<unknown>;
  rollback(): PromiseLike<unknown>;
}

export type OutboxHandle =
  | PostgresJsHandle
  | PgClientHandle
  | KnexHandle
  | DrizzleHandle
  | KyselyHandle
  | MssqlTransactionHandle;

export type HandleKind = 'postgres.js' | 'pg' | 'knex' | 'drizzle' | 'kysely' | 'mssql';

/** Runs one statement, written with `$n` placeholders, on a PostgreSQL handle. */
export interface PostgresRunner {
  readonly kind: Exclude<HandleKind, 'mssql'>;
  readonly dialect: 'postgresql';
  run(text: string, knexText: string, params: Params): Promise<void>;
}

/** Runs one batch with named parameters (`@name`), all bound as text, on a SQL Server handle. */
export interface SqlServerRunner {
  readonly kind: 'mssql';
  readonly dialect: 'sqlserver';
  run(statement: SqlServerStatement): Promise<void>;
}

export type Runner = PostgresRunner | SqlServerRunner;

const PREPARE = { prepare: true } as const;
const DRIZZLE_ENTITY = Symbol.for('drizzle:entityKind');

export function runnerFor(db: OutboxHandle): Runner {
  const handle = db as unknown as Record<string | symbol, unknown>;
  if (typeof handle.request === 'function') return mssqlRunner(db, handle);
  if (typeof db === 'function' && typeof handle.unsafe === 'function') {
    return {
      kind: 'postgres.js',
      dialect: 'postgresql',
      // The texts are fixed per schema, so they run as named prepared statements (postgres.js
      // caches them per connection): an unprepared statement with parameters costs postgres.js
      // a Describe round trip before its Bind. A `sql` made with `prepare: false` (for a
      // transaction-mode pooler) keeps them unprepared: its own setting wins.
      run: async (text, _k, params) =>
        void (await call(handle.unsafe, db, text, [...params], PREPARE)),
    };
  }
  if (typeof db === 'function' && typeof handle.raw === 'function') {
    // knex binds `?` placeholders and rewrites them for the driver.
    return {
      kind: 'knex',
      dialect: 'postgresql',
      run: async (_t, knexText, params) => void (await call(handle.raw, db, knexText, [...params])),
    };
  }
  if (isDrizzle(db) && typeof handle.execute === 'function') {
    return {
      kind: 'drizzle',
      dialect: 'postgresql',
      // drizzle's execute() takes anything with getSQL(); the dialect renders it by calling
      // toQuery(), which here returns the finished text and its positional parameters.
      run: async (text, _k, params) =>
        void (await call(handle.execute, db, {
          getSQL: () => ({ toQuery: () => ({ sql: text, params: [...params], typings: [] }) }),
        })),
    };
  }
  if (typeof handle.executeQuery === 'function') {
    return {
      kind: 'kysely',
      dialect: 'postgresql',
      // A CompiledQuery (kysely's public interface): the driver gets `sql` and `parameters`.
      run: async (text, _k, params) =>
        void (await call(handle.executeQuery, db, {
          sql: text,
          parameters: [...params],
          query: { kind: 'RawNode', sqlFragments: [text], parameters: [] },
          queryId: { queryId: 'queuebox-outbox-insert' },
        })),
    };
  }
  if (typeof handle.query === 'function') {
    if (typeof handle.connect === 'function' && typeof handle.totalCount === 'number') {
      throw new TypeError(
        'enqueue got a pg Pool: pool.query() runs on any free connection, so the row would not be written in your transaction. Pass the client you ran BEGIN on (const client = await pool.connect()).',
      );
    }
    return {
      kind: 'pg',
      dialect: 'postgresql',
      run: async (text, _k, params) => void (await call(handle.query, db, text, [...params])),
    };
  }
  throw new TypeError(
    'enqueue needs a database handle: a postgres.js sql or transaction, a pg client, a knex transaction, a drizzle transaction, a kysely transaction or an mssql transaction.',
  );
}

function isDrizzle(db: object): boolean {
  const constructor = (db as { constructor?: unknown }).constructor;
  return (
    typeof constructor === 'function' &&
    typeof (constructor as unknown as Record<symbol, unknown>)[DRIZZLE_ENTITY] === 'string'
  );
}

/** The mssql Request methods this package calls. */
interface MssqlRequest {
  input(name: string, value: unknown): unknown;
  query(text: string): PromiseLike<unknown>;
}

function mssqlRunner(db: object, handle: Record<string | symbol, unknown>): SqlServerRunner {
  if (typeof handle.commit !== 'function' || typeof handle.rollback !== 'function') {
    throw new TypeError(
      'enqueue got an mssql handle that is not a Transaction (a ConnectionPool?): its requests run on any free connection, so the row would not be written in your transaction. Pass the transaction you began (const tx = new sql.Transaction(pool); await tx.begin()).',
    );
  }
  return {
    kind: 'mssql',
    dialect: 'sqlserver',
    async run(statement) {
      const request = Reflect.apply(handle.request as () => unknown, db, []) as MssqlRequest;
      // Strings only: mssql binds a string (and a null) as NVARCHAR; the SQL converts each.
      for (const param of statement.params) request.input(param.name, param.value);
      await request.query(statement.text);
    },
  };
}
