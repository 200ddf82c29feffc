import {
  createFreshDatabase,
  recordingLogger,
  startFaultProxy,
  startHttpSink,
  type FaultProxy,
  type FreshDatabase,
  type HttpSink,
  type RecordingLogger,
  type SinkHandler,
} from '@queuebox/testing';
import { afterAll, beforeAll } from 'vitest';
import { startTestService } from './service.js';
import { sinkRoute } from './yaml-pieces.js';

/** A timed answer: the status, the body text, and how long the answer took. */
export interface TimedAnswer {
  readonly status: number;
  readonly body: string;
  readonly ms: number;
}

/**
 * A fresh database that QueueBox reaches only through a fault proxy, so a test can cut, refuse
 * or slow its connections without touching the shared server; `via` is the database as QueueBox
 * is given it, while `db` reads and writes straight on the server.
 */
export interface ProxiedDatabase {
  readonly db: FreshDatabase;
  readonly proxy: FaultProxy;
  readonly via: { readonly jdbcUrl: string; readonly user: string };
  close(): Promise<void>;
}

export async function startProxiedDatabase(
  pgUrl: string,
  prefix: string,
): Promise<ProxiedDatabase> {
  const db = await createFreshDatabase(pgUrl, prefix);
  const proxy = await startFaultProxy({ target: { host: db.host, port: db.port } });
  return {
    db,
    proxy,
    via: { jdbcUrl: `jdbc:postgresql://${proxy.host}:${proxy.port}/${db.name}`, user: db.user },
    close: async () => {
      await proxy.close();
      await db.drop();
    },
  };
}

export interface ProxiedService {
  readonly db: FreshDatabase;
  readonly proxy: FaultProxy;
  readonly sink: HttpSink;
  readonly logger: RecordingLogger;
  readonly service: Awaited<ReturnType<typeof startTestService>>;
  /** A request to the service, timed. */
  timed(path: string, init?: RequestInit): Promise<TimedAnswer>;
  /** `POST /inbox/hooks` of a JSON webhook with this idempotency key and `kind`. */
  webhook(id: string, kind: string): Promise<TimedAnswer>;
  close(): Promise<void>;
}

export interface ProxiedServiceOptions {
  /** The service's YAML, given the sink's URL; the default's is described at startProxiedService. */
  readonly yaml?: (sinkUrl: string) => string;
  /** How the sink answers; 200 unless given. */
  readonly answer?: SinkHandler;
}

/** One HTTP source (`/inbox/hooks`, key `$.id`, topic `hooks.received`), every topic to the sink. */
const webhooksToSink = (sinkUrl: string) => `
database:
  migrate: true
${sinkRoute(sinkUrl, { path: '/events' })}sources:
  hooks:
    path: /hooks
    idempotencyKeyPath: $.id
    topic: hooks.received
`;

/**
 * The real service, at its default pool settings unless `yaml` sets them, on a proxied database
 * (the database tests' outages and latency), delivering to a real HTTP sink. Its log lines are
 * recorded with their times.
 */
export async function startProxiedService(
  pgUrl: string,
  prefix: string,
  options: ProxiedServiceOptions = {},
): Promise<ProxiedService> {
  const database = await startProxiedDatabase(pgUrl, prefix);
  const sink = await startHttpSink(options.answer);
  const logger = recordingLogger();
  const yaml = options.yaml ?? webhooksToSink;
  const service = await startTestService(database.via, yaml(sink.url), {}, logger).catch(
    async (error: unknown) => {
      await Promise.allSettled([sink.close(), database.close()]);
      throw error;
    },
  );
  const timed = async (path: string, init?: RequestInit): Promise<TimedAnswer> => {
    const started = performance.now();
    const response = await fetch(`${service.base}${path}`, init);
    const body = await response.text();
    return { status: response.status, body, ms: performance.now() - started };
  };
  return {
    db: database.db,
    proxy: database.proxy,
    sink,
    logger,
    service,
    timed,
    webhook: (id, kind) =>
      timed('/inbox/hooks', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ id, kind }),
      }),
    close: async () => {
      await service.stop();
      await sink.close();
      await database.close();
    },
  };
}

/**
 * startProxiedService for a whole suite: started by its beforeAll, closed by its afterAll. The
 * fields are read through once beforeAll has run.
 */
export function proxiedService(
  pgUrl: string,
  prefix: string,
  options: ProxiedServiceOptions = {},
): ProxiedService {
  let started: ProxiedService | undefined;
  beforeAll(async () => {
    started = await startProxiedService(pgUrl, prefix, options);
  });
  afterAll(async () => {
    await started?.close();
  });
  const current = (): ProxiedService => {
    if (started === undefined) throw new Error('The proxied service is read before it started.');
    return started;
  };
  return {
    get db() {
      return current().db;
    },
    get proxy() {
      return current().proxy;
    },
    get sink() {
      return current().sink;
    },
    get logger() {
      return current().logger;
    },
    get service() {
      return current().service;
    },
    timed: (path, init) => current().timed(path, init),
    webhook: (id, kind) => current().webhook(id, kind),
    close: () => current().close(),
  };
}
