/**
 * The service between a fresh database and a real HTTP sink, as the webhook end-to-end files run
 * it: `yaml` gets the sink's URL. The returned object's fields are set once the file's beforeAll
 * has run (the database, the sink, the running service).
 */
import type { FreshDatabase, HttpSink } from '@queuebox/testing';
import { afterAll, beforeAll } from 'vitest';
import { databaseAndSink, freshDatabase } from './database-and-sink.js';
import { startTestService } from './service.js';

export type TestService = Awaited<ReturnType<typeof startTestService>>;

export interface SinkService {
  readonly db: FreshDatabase;
  readonly sink: HttpSink;
  readonly service: TestService;
}

export function sinkService(pgUrl: string, yaml: (sinkUrl: string) => string): SinkService {
  const suite = databaseAndSink(pgUrl);
  const service = serviceHook(() => startTestService(suite.db, yaml(suite.sink.url)));
  return {
    get db() {
      return suite.db;
    },
    get sink() {
      return suite.sink;
    },
    get service() {
      return service();
    },
  };
}

/** The same without a sink, for a suite whose deliveries go nowhere: `yaml` is taken as it is. */
export function serviceOnDatabase(
  pgUrl: string,
  yaml: string,
): { readonly db: FreshDatabase; readonly service: TestService } {
  const database = freshDatabase(pgUrl);
  const service = serviceHook(() => startTestService(database.db, yaml));
  return {
    get db() {
      return database.db;
    },
    get service() {
      return service();
    },
  };
}

/** Starts the service in beforeAll and stops it in afterAll, before what it stands on goes. */
function serviceHook(start: () => Promise<TestService>): () => TestService {
  let service: TestService | undefined;
  beforeAll(async () => {
    service = await start();
  });
  afterAll(async () => {
    await service?.stop();
  });
  return () => {
    if (service === undefined) throw new Error('The service is read before it started.');
    return service;
  };
}
