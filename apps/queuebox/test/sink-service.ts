/**
 * The service between a fresh database and a real HTTP sink, as the webhook end-to-end files run
 * it: `yaml` gets the sink's URL. The returned object's fields are set once the file's beforeAll
 * has run (the database, the sink, the running service).
 */
import {
  createFreshDatabase,
  startHttpSink,
  type FreshDatabase,
  type HttpSink,
} from '@queuebox/testing';
import { afterAll, beforeAll } from 'vitest';
import { startTestService } from './service.js';

export interface SinkService {
  readonly db: FreshDatabase;
  readonly sink: HttpSink;
  readonly service: Awaited<ReturnType<typeof startTestService>>;
}

export function sinkService(pgUrl: string, yaml: (sinkUrl: string) => string): SinkService {
  let db: FreshDatabase;
  let sink: HttpSink;
  let service: Awaited<ReturnType<typeof startTestService>>;
  beforeAll(async () => {
    db = await createFreshDatabase(pgUrl);
    sink = await startHttpSink();
    service = await startTestService(db, yaml(sink.url));
  });
  afterAll(async () => {
    await service?.stop();
    await sink?.close();
    await db?.drop();
  });
  return {
    get db() {
      return db;
    },
    get sink() {
      return sink;
    },
    get service() {
      return service;
    },
  };
}
