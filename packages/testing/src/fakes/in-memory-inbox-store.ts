/**
 * A test-only InboxStore that keeps rows in memory and honours the one rule the ingest path
 * relies on: one row per (source, idempotency key). The relay methods are out of its scope (the
 * PostgreSQL store's contract suite covers them) and throw.
 */
import {
  toError,
  type InboxStore,
  type NewInboxMessage,
  type StoreOptions,
  type StoreResult,
} from '@queuebox/core';

export interface StoredRow {
  readonly message: NewInboxMessage;
  readonly options: StoreOptions;
}

export interface InMemoryInboxStore extends InboxStore {
  readonly rows: StoredRow[];
  /** Makes every later `store` call reject with this error (null: work again). */
  failWith(error: unknown): void;
}

export function inMemoryInboxStore(): InMemoryInboxStore {
  const rows: StoredRow[] = [];
  const keys = new Set<string>();
  let failure: unknown = null;
  const unsupported = (name: string) => () =>
    Promise.reject(new Error(`${name} is not supported by the in-memory inbox store`));
  return {
    rows,
    failWith(error) {
      failure = error;
    },
    store(message, options): Promise<StoreResult> {
      if (failure !== null) return Promise.reject(toError(failure));
      const unique = JSON.stringify([message.source, message.idempotencyKey]);
      if (keys.has(unique)) return Promise.resolve({ kind: 'duplicate' });
      keys.add(unique);
      rows.push({ message, options });
      return Promise.resolve({ kind: 'stored' });
    },
    claimForRelay: unsupported('claimForRelay'),
    forward: unsupported('forward'),
    markDead: unsupported('markDead'),
    renew: unsupported('renew'),
    reclaimExpired: unsupported('reclaimExpired'),
    oldestPendingAgeSeconds: unsupported('oldestPendingAgeSeconds'),
  };
}
