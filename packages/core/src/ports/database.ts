import type { AppConfig, DatabaseType } from '../config/app-config.js';
import type { Clock } from './clock.js';
import type { Logger } from './logger.js';
import type { InboxStore } from './inbox-store.js';
import type { OutboxStore } from './outbox-store.js';
import type { RetentionStore } from './retention-store.js';
import type { ConsoleStore } from './console-store.js';

export interface MigrateOptions {
  /** `migrate --baseline <version>`: record this version as applied without running it. */
  readonly baseline?: string;
}

export interface MigrationReport {
  /** Versions applied by this run, in order ("1", "2", ...). Empty when up to date. */
  readonly applied: readonly string[];
  readonly baseline: string | null;
}

/** A live connection pool on the application's database, with what QueueBox does on it. */
export interface Database {
  /** Applies the bundled migrations with the guards of spec §17.3. */
  migrate(options?: MigrateOptions): Promise<MigrationReport>;
  /** The schema guard of spec §3.6: mapped `headers` and `sequence` columns must exist. */
  checkSchema(): Promise<void>;
  /** Borrows a connection and validates it within `timeoutMs` (readiness). */
  ping(timeoutMs: number): Promise<boolean>;
  outboxStore(): OutboxStore;
  inboxStore(): InboxStore;
  retentionStore(): RetentionStore;
  /** The dead-letter console's queries, where the dialect has them. */
  consoleStore?(): ConsoleStore;
  close(): Promise<void>;
}

export interface DatabaseDeps {
  readonly logger: Logger;
  readonly clock: Clock;
  /** Told about every connection QueueBox borrows from the pool itself (the pool metrics). */
  readonly pool?: PoolObserver;
}

/**
 * The pool families of spec §14 (`hikaricp_connections_pending`, `_acquire_seconds`,
 * `_timeout_total`), measured where QueueBox borrows a connection itself: the driver may keep
 * no statistics of its own.
 */
export interface PoolObserver {
  /** A borrow starts waiting; the returned function is called once, when it ends. */
  borrow(): (outcome: 'acquired' | 'timeout') => void;
}

/**
 * What a database provider package exports as `provider`. The app loads it through its
 * provider registry (a dynamic import), so the shape is checked at run time too.
 */
export interface DatabaseProvider {
  readonly kind: 'database';
  readonly name: DatabaseType;
  /** Opens the pool and waits for the database as spec §17.1 step 5 says. */
  open(config: AppConfig, deps: DatabaseDeps): Promise<Database>;
  /**
   * The configuration problems `open` would stop on before any I/O (identifiers, URL
   * parameters), without opening anything; `queuebox config check` reports them.
   */
  check?(config: AppConfig): readonly string[];
}
