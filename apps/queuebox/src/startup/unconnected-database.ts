import { QueueBoxError, type Database } from '@queuebox/core';

/**
 * The database `queuebox config check` builds the routes on: the routes only keep the stores
 * they are given until a request arrives, and the check never serves one, so every operation
 * here rejects. A check that reached the database by mistake fails loudly instead of connecting.
 */
export function unconnectedDatabase(): Database {
  const refuse = (): Promise<never> =>
    Promise.reject(
      new QueueBoxError('internal', 'queuebox config check never connects to the database.'),
    );
  // Any store method: the stores are ports with many methods, none of which may run here.
  const store = <T extends object>(): T =>
    new Proxy({} as T, { get: (_target, key) => (key === 'then' ? undefined : refuse) });
  return {
    migrate: refuse,
    checkSchema: refuse,
    ping: refuse,
    outboxStore: store,
    inboxStore: store,
    retentionStore: store,
    consoleStore: store,
    close: () => Promise.resolve(),
  };
}
