import { tagAdapter } from './adapter-dialect.js';
import { isWorkerStatement } from './worker-statements.js';

/**
 * How the worker reaches the database: a connection source lends connections, each able to run
 * positional-parameter SQL and a transaction. Adapters wrap the caller's own pool, which the
 * caller keeps owning (the worker never ends it). No driver is imported.
 */
export interface InboxQueryResult {
  readonly rows: readonly Record<string, unknown>[];
  readonly rowCount: number;
}

/** What a handler gets: its open transaction's `query`. It must not commit or roll back. */
export interface InboxTransaction {
  query(text: string, params?: readonly unknown[]): Promise<InboxQueryResult>;
}

export interface InboxConnection extends InboxTransaction {
  begin(): Promise<void>;
  commit(): Promise<void>;
  rollback(): Promise<void>;
  /**
   * Hands the connection back. `discard` is true when a handler the worker stopped waiting for
   * (past the shutdown grace) may still be inside a transaction or a statement on it: it must
   * not reach another user as it is (roll back behind that statement, or close it).
   */
  release(discard?: boolean): void;
}

export interface InboxConnectionSource {
  connect(): Promise<InboxConnection>;
}

/**
 * pg's pool client, as far as the worker uses it. Parameters are typed `never` so that the
 * library's richer overloads fit under method bivariance without naming pg's types.
 */
export interface PgClientLike {
  query(text: string, values?: never): Promise<{ rows: unknown[]; rowCount: number | null }>;
  release(destroy?: boolean | Error): void;
}

export interface PgPoolLike {
  connect(): Promise<PgClientLike>;
}

/** A pg `Pool`: each connection is a checked-out client, returned on release. */
export function fromPg(pool: PgPoolLike): InboxConnectionSource {
  return tagAdapter(pgSource(pool), 'fromPg', 'postgresql');
}

function pgSource(pool: PgPoolLike): InboxConnectionSource {
  return {
    async connect() {
      const client = await pool.connect();
      // A client whose BEGIN, COMMIT or ROLLBACK failed may be mid-transaction or broken: it is
      // destroyed rather than handed back to the pool for the next user.
      let broken = false;
      const loose = client as unknown as {
        query(text: string, values?: unknown[]): ReturnType<PgClientLike['query']>;
      };
      const run = async (text: string, params?: readonly unknown[]) => {
        const result = await loose.query(text, params === undefined ? undefined : [...params]);
        return { rows: result.rows as Record<string, unknown>[], rowCount: result.rowCount ?? 0 };
      };
      const control = (command: string) => async () => {
        try {
          await run(command);
        } catch (error: unknown) {
          broken = true;
          throw error;
        }
      };
      return {
        query: run,
        begin: control('BEGIN'),
        commit: control('COMMIT'),
        rollback: control('ROLLBACK'),
        // pg closes a destroyed client's socket, so the server rolls its transaction back.
        release: (discard?: boolean) => client.release(broken || discard === true),
      };
    },
  };
}

/** A reserved postgres.js connection, as far as the worker uses it. */
export interface PostgresJsReservedLike {
  unsafe(
    query: string,
    parameters?: never,
  ): PromiseLike<ArrayLike<unknown> & { count: number | null }>;
  release(): void;
}

const PREPARE = { prepare: true } as const;

export interface PostgresJsLike {
  reserve(): Promise<PostgresJsReservedLike>;
}

/**
 * A postgres.js `sql`: each connection is `sql.reserve()`, released after use. The worker's own
 * statements run as named prepared statements (postgres.js caches them per connection): an
 * unprepared statement with parameters costs postgres.js a Describe round trip before its Bind,
 * so a completion would cost two round trips and two socket writes instead of one. Only the
 * worker's texts are prepared (see worker-statements.ts), so a handler's own SQL, however
 * varied, never fills the connection's statement cache. A `sql` created with `prepare: false`
 * (for a transaction-mode pooler) keeps them unprepared.
 */
export function fromPostgresJs(sql: PostgresJsLike): InboxConnectionSource {
  return tagAdapter(postgresJsSource(sql), 'fromPostgresJs', 'postgresql');
}

function postgresJsSource(sql: PostgresJsLike): InboxConnectionSource {
  return {
    async connect() {
      const reserved = await sql.reserve();
      // The handle types take `never` parameters (see PgClientLike); the call binds real ones.
      const loose = reserved as unknown as {
        unsafe(
          text: string,
          params: unknown[],
          options?: { prepare: boolean },
        ): PromiseLike<ArrayLike<unknown> & { count: number | null }>;
      };
      const unsafe = (text: string, params: unknown[] = [], prepare = false) =>
        loose.unsafe(text, params, prepare ? PREPARE : undefined);
      const answer = (result: ArrayLike<unknown> & { count: number | null }) => ({
        rows: Array.from(result) as Record<string, unknown>[],
        rowCount: result.count ?? 0,
      });
      const run = async (text: string, params?: readonly unknown[]) =>
        answer(
          await unsafe(text, params === undefined ? [] : [...params], isWorkerStatement(text)),
        );
      let done = false;
      let open = false;
      const control = (command: string, opens: boolean) => async () => {
        await run(command);
        open = opens;
      };
      return {
        query: run,
        begin: control('BEGIN', true),
        commit: control('COMMIT', false),
        rollback: control('ROLLBACK', false),
        release: (discard?: boolean) => {
          if (done) return;
          done = true;
          // A transaction left open would travel with the connection to its next user. On a
          // discarded connection a BEGIN may still be in flight, so the ROLLBACK always goes out,
          // queued behind whatever the handler left running.
          if (open || discard === true)
            void unsafe('ROLLBACK').then(
              () => reserved.release(),
              () => reserved.release(),
            );
          else reserved.release();
        },
      };
    },
  };
}
