import {
  createFreshDatabase,
  startHttpSink,
  type FreshDatabase,
  type HttpSink,
  type SinkHandler,
} from '@queuebox/testing';
import { afterAll, beforeAll } from 'vitest';

/**
 * What most suites stand on: a fresh database, and often a real HTTP sink, made by the suite's
 * beforeAll and removed by its afterAll. The fields are getters, set once beforeAll has run.
 * Hooks that a file registers after calling these run after their beforeAll and before their
 * afterAll (vitest runs the after hooks as a stack).
 */
export interface FreshDatabaseFixture {
  readonly db: FreshDatabase;
}

export interface DatabaseAndSink extends FreshDatabaseFixture {
  readonly sink: HttpSink;
}

export function freshDatabase(pgUrl: string, prefix?: string): FreshDatabaseFixture {
  let db: FreshDatabase | undefined;
  beforeAll(async () => {
    db = await createFreshDatabase(pgUrl, prefix);
  });
  afterAll(async () => {
    await db?.drop();
  });
  return {
    get db() {
      return made(db, 'database');
    },
  };
}

export function databaseAndSink(
  pgUrl: string,
  options: { readonly prefix?: string; readonly answer?: SinkHandler } = {},
): DatabaseAndSink {
  const database = freshDatabase(pgUrl, options.prefix);
  let sink: HttpSink | undefined;
  beforeAll(async () => {
    sink = await startHttpSink(options.answer);
  });
  afterAll(async () => {
    await sink?.close();
  });
  return {
    get db() {
      return database.db;
    },
    get sink() {
      return made(sink, 'sink');
    },
  };
}

function made<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`The suite's ${what} is read before its beforeAll ran.`);
  return value;
}
