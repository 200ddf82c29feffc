import type { AppConfig, DatabaseConfig } from '../config/app-config.js';
import { QueueBoxError } from '../errors.js';
import type { Database, DatabaseDeps, DatabaseProvider } from '../ports/database.js';

export interface SqlDatabaseProviderSpec {
  readonly name: DatabaseProvider['name'];
  /** How the texts name the database (its display name). */
  readonly label: string;
  /**
   * What `open` checks before any I/O (identifiers, URL properties): each throws its problem.
   * `config check` runs them all and lists every problem; `open` stops on the first.
   */
  readonly checks: readonly ((database: DatabaseConfig) => unknown)[];
  /** Opens the pool, waits for the database, builds the Database; runs after the checks. */
  open(database: DatabaseConfig, deps: DatabaseDeps): Promise<Database>;
}

/**
 * The provider shell every SQL dialect shares: it refuses a database of another type, runs the
 * dialect's checks before it connects (a bad name is a configuration error, not an outage), and
 * gives `config check` the same checks as problem lines.
 */
export function sqlDatabaseProvider(spec: SqlDatabaseProviderSpec): DatabaseProvider {
  return {
    kind: 'database',
    name: spec.name,
    async open(config: AppConfig, deps: DatabaseDeps): Promise<Database> {
      const database = config.database;
      if (database.type !== spec.name) {
        throw new QueueBoxError(
          'config_invalid',
          `The ${spec.label} provider was asked to open a '${database.type}' database.`,
        );
      }
      for (const check of spec.checks) check(database);
      return spec.open(database, deps);
    },
    check(config: AppConfig): string[] {
      const problems: string[] = [];
      for (const check of spec.checks) {
        try {
          check(config.database);
        } catch (error: unknown) {
          problems.push(error instanceof Error ? error.message : String(error));
        }
      }
      return problems;
    },
  };
}

/** Runs `wait` on a freshly opened pool; closes the pool when the wait fails. */
export async function afterWaiting<T>(
  wait: () => Promise<unknown>,
  close: () => Promise<unknown>,
  then: () => T,
): Promise<T> {
  try {
    await wait();
  } catch (error: unknown) {
    await close().catch(() => undefined);
    throw error;
  }
  return then();
}
