import { Connection, type ConnectionConfiguration } from 'tedious';
import { QueueBoxError } from '@queuebox/core';
import { sessionOf, type Session } from './session.js';

/**
 * A small pool of tedious connections, where the reference had HikariCP: tedious is one
 * connection per object and has no pool of its own (the `mssql` package's pool would be a second
 * driver package). At most `size` connections; a borrow waits at most `acquireTimeoutMs`
 * (`database.connectionTimeoutMs`, Hikari's connectionTimeout); a connection that failed a
 * statement with a connection error is discarded, never handed out again.
 */
export interface SqlServerPool {
  /** Lends one connection to `work`, outside any transaction (each statement auto-commits). */
  withSession<T>(work: (session: Session) => Promise<T>): Promise<T>;
  /** Lends one connection inside one READ COMMITTED transaction: commit on return, else rollback. */
  transaction<T>(work: (session: Session) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

interface Pooled {
  readonly connection: Connection;
  readonly session: Session;
  broken: boolean;
}

export function openConnection(config: ConnectionConfiguration): Promise<Pooled> {
  return new Promise((resolve, reject) => {
    const connection = new Connection(config);
    const pooled: Pooled = { connection, session: sessionOf(connection), broken: false };
    // Errors after connect (socket reset) mark the connection; the next borrow skips it.
    connection.on('error', () => {
      pooled.broken = true;
    });
    connection.on('end', () => {
      pooled.broken = true;
    });
    connection.connect((error) => {
      if (error) {
        connection.close();
        reject(error);
      } else resolve(pooled);
    });
  });
}

export function createPool(
  config: ConnectionConfiguration,
  size: number,
  acquireTimeoutMs: number,
): SqlServerPool {
  const idle: Pooled[] = [];
  const waiters: ((pooled: Pooled | undefined) => void)[] = [];
  let open = 0;
  let closed = false;

  async function acquire(): Promise<Pooled> {
    if (closed) throw new QueueBoxError('database_unavailable', 'The connection pool is closed.');
    for (let next = idle.pop(); next; next = idle.pop()) {
      if (!next.broken) return next;
      open--;
      next.connection.close();
    }
    if (open < size) {
      open++;
      try {
        return await openConnection(config);
      } catch (error: unknown) {
        open--;
        wakeOne();
        throw error;
      }
    }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        waiters.splice(waiters.indexOf(handoff), 1);
        reject(
          new QueueBoxError(
            'database_unavailable',
            `No database connection was free within ${acquireTimeoutMs} ms (database.poolSize ${size}).`,
            { retryable: true },
          ),
        );
      }, acquireTimeoutMs);
      const handoff = (pooled: Pooled | undefined) => {
        clearTimeout(timer);
        if (pooled) resolve(pooled);
        else acquire().then(resolve, reject);
      };
      waiters.push(handoff);
    });
  }

  /** A slot came free without a connection (a failed open or a discarded one). */
  function wakeOne(): void {
    waiters.shift()?.(undefined);
  }

  function release(pooled: Pooled, broken: boolean): void {
    if (broken || pooled.broken || closed) {
      open--;
      pooled.connection.close();
      wakeOne();
      return;
    }
    const waiter = waiters.shift();
    if (waiter) waiter(pooled);
    else idle.push(pooled);
  }

  async function withPooled<T>(work: (pooled: Pooled) => Promise<T>): Promise<T> {
    const pooled = await acquire();
    let broken = false;
    try {
      return await work(pooled);
    } catch (error: unknown) {
      broken = isConnectionError(error);
      throw error;
    } finally {
      release(pooled, broken);
    }
  }

  return {
    withSession<T>(work: (session: Session) => Promise<T>): Promise<T> {
      return withPooled((pooled) => work(pooled.session));
    },
    transaction<T>(work: (session: Session) => Promise<T>): Promise<T> {
      return withPooled(({ session }) => session.inTransaction(() => work(session)));
    },
    async close(): Promise<void> {
      closed = true;
      for (const waiter of waiters.splice(0)) waiter(undefined);
      for (const pooled of idle.splice(0)) {
        open--;
        pooled.connection.close();
      }
      await Promise.resolve();
    },
  };
}

/** tedious's error codes for a connection that can no longer be used. */
export function isConnectionError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return (
    typeof code === 'string' &&
    [
      'ESOCKET',
      'ECLOSE',
      'ECONNRESET',
      'ETIMEOUT',
      'EINVALIDSTATE',
      'ELOGIN',
      'ECONNCLOSED',
    ].includes(code)
  );
}
