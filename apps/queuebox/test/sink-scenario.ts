/**
 * The real service in this process on a fresh database, delivering to a real HTTP sink that
 * answers as the file's `handler` says; `yaml` gets the sink's URL. The returned object's fields
 * are set once the suite's beforeAll has run, and everything is closed after its last test. A
 * file's own afterAll, registered after this call, runs before the service stops (vitest runs
 * the after hooks last registered first).
 */
import type { FreshDatabase, HttpSink, SinkHandler } from '@queuebox/testing';
import { beforeAll } from 'vitest';
import { suiteScratch } from './scratch.js';
import { openDatabase, openService, openSink, type TestService } from './scratch-opens.js';

export interface SinkScenarioOptions {
  readonly pgUrl: string;
  /** The database name's prefix. */
  readonly database?: string;
  readonly handler?: SinkHandler;
  readonly yaml: (sinkUrl: string) => string;
  /** Runs on the fresh database before the service starts (tables of the file's own). */
  readonly prepare?: (db: FreshDatabase) => Promise<void>;
}

export interface SinkScenario {
  readonly db: FreshDatabase;
  readonly sink: HttpSink;
  readonly service: TestService;
}

export function sinkScenario(options: SinkScenarioOptions): SinkScenario {
  const scenario = {} as { db: FreshDatabase; sink: HttpSink; service: TestService };
  const scratch = suiteScratch();
  beforeAll(async () => {
    scenario.db = await openDatabase(scratch, options.pgUrl, options.database);
    await options.prepare?.(scenario.db);
    scenario.sink = await openSink(scratch, options.handler);
    scenario.service = await openService(scratch, scenario.db, options.yaml(scenario.sink.url));
  });
  return scenario;
}
