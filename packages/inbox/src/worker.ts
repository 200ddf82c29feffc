import { checkAdapterDialect } from './adapter-dialect.js';
import type { InboxConnectionSource } from './connections.js';
import { inboxSql } from './inbox-sql.js';
import { resolveOptions, type InboxOptions, type ResolvedInboxOptions } from './options.js';
import type { InboxStatements } from './sql/statement.js';
import type { InboxHandler } from './worker/delivery.js';
import { MAX_INT, type LoopSettings } from './worker/held.js';
import { WorkerLoop } from './worker/worker-loop.js';
import { registerWorkerStatements } from './worker-statements.js';

export type { InboxHandler } from './worker/delivery.js';

/**
 * The pull worker (spec §9.3). The claim runs alone, committed before any handler; each
 * message's handler runs in a transaction of its own connection, and `complete` commits with
 * the handler's writes; a renewal on yet another connection keeps the lease, every leaseMs / 3.
 */
export class InboxWorker {
  readonly #connections: InboxConnectionSource;
  readonly #options: ResolvedInboxOptions;
  readonly #sql: InboxStatements;
  readonly #concurrency: number;
  readonly #renewEveryMs: number;
  #running = false;

  constructor(connections: InboxConnectionSource, options: InboxOptions) {
    if (connections === null || typeof connections?.connect !== 'function') {
      throw new TypeError('The connections must be a connection source with a connect() method.');
    }
    this.#connections = connections;
    this.#options = resolveOptions(options);
    checkAdapterDialect(connections, this.#options.dialect);
    if (this.#options.dialect === 'sqlserver' && this.#options.leaseMs > MAX_INT) {
      // The claim's lease is an INT there (DATEADD); a longer one would fail every claim.
      throw new RangeError(`On SQL Server the leaseMs must be at most ${MAX_INT}.`);
    }
    this.#sql = inboxSql(this.#options.dialect, this.#options.schema, {
      strictAggregateOrder: this.#options.strictAggregateOrder,
    });
    registerWorkerStatements(this.#sql);
    this.#concurrency = Math.min(this.#options.maxConcurrency, this.#options.batchSize);
    this.#renewEveryMs = Math.max(1, Math.floor(this.#options.leaseMs / 3));
  }

  /** Claims and handles messages until `signal` aborts; settles once every handler settled. */
  async run(handler: InboxHandler, signal?: AbortSignal): Promise<void> {
    if (typeof handler !== 'function') throw new TypeError('The handler must be a function.');
    if (this.#running) throw new Error('The worker is already running.');
    this.#running = true;
    try {
      const settings: LoopSettings = {
        options: this.#options,
        statements: this.#sql,
        connections: this.#connections,
        concurrency: this.#concurrency,
        renewEveryMs: this.#renewEveryMs,
      };
      await new WorkerLoop(settings, handler, signal).run();
    } finally {
      this.#running = false;
    }
  }
}
