import type { FreshDatabase, SinkHandler } from '@queuebox/testing';
import { afterAll, beforeAll } from 'vitest';
import { databaseAndSink, freshDatabase, type DatabaseAndSink } from './database-and-sink.js';
import { assertBuilt, databaseEnv, serveQueueBox, type QueueBoxProcess } from './process.js';

/**
 * Suites that run the built app (`dist/main.js`) as real processes on a fresh database. Each
 * registers the suite's hooks, checks the build first, and hands back getters set once the
 * suite's beforeAll has run.
 */

export interface ServedSuite extends DatabaseAndSink {
  /** Serves `yaml` on the suite's database; the suite's afterAll kills it if a test did not. */
  serve(yaml: string): Promise<{ qb: QueueBoxProcess; base: string }>;
}

/** Processes that deliver to one HTTP sink, which answers as `answer` says. */
export function servedOnDatabase(
  pgUrl: string,
  options: { readonly prefix?: string; readonly answer?: SinkHandler } = {},
): ServedSuite {
  beforeAll(assertBuilt);
  const suite = databaseAndSink(pgUrl, options);
  const running: QueueBoxProcess[] = [];
  afterAll(() => {
    for (const qb of running) if (qb.child.exitCode === null) qb.child.kill('SIGKILL');
  });
  return {
    get db() {
      return suite.db;
    },
    get sink() {
      return suite.sink;
    },
    serve: (yaml) => serveQueueBox(suite.db, yaml, running),
  };
}

export interface CommandSuite {
  readonly db: FreshDatabase;
  /** The variables that point a `queuebox` command at the suite's database and `yaml`. */
  readonly env: Record<string, string>;
}

/** Commands run one by one against the suite's database, with `yaml` as their file. */
export function commandsOnDatabase(
  pgUrl: string,
  yaml: string,
  options: { readonly prefix?: string; readonly password?: string } = {},
): CommandSuite {
  beforeAll(assertBuilt);
  const database = freshDatabase(pgUrl, options.prefix);
  let env: Record<string, string> | undefined;
  beforeAll(() => {
    env = databaseEnv(database.db, yaml, options.password);
  });
  return {
    get db() {
      return database.db;
    },
    get env() {
      if (env === undefined) throw new Error("The suite's env is read before its beforeAll ran.");
      return env;
    },
  };
}
