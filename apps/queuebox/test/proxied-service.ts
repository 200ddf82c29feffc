import {
  createFreshDatabase,
  recordingLogger,
  startFaultProxy,
  startHttpSink,
  type FaultProxy,
  type FreshDatabase,
  type HttpSink,
  type RecordingLogger,
} from '@queuebox/testing';
import { startTestService } from './service.js';

/** A timed answer: the status, the body text, and how long the answer took. */
export interface TimedAnswer {
  readonly status: number;
  readonly body: string;
  readonly ms: number;
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

/**
 * The real service at its default pool settings, on a fresh database that it reaches only
 * through a fault proxy (the database tests' outages and latency), with one HTTP source
 * (`/inbox/hooks`, key `$.id`, topic `hooks.received`) and every topic routed to a real HTTP
 * sink. Its log lines are recorded with their times.
 */
export async function startProxiedService(pgUrl: string, prefix: string): Promise<ProxiedService> {
  const db = await createFreshDatabase(pgUrl, prefix);
  const proxy = await startFaultProxy({ target: { host: db.host, port: db.port } });
  const sink = await startHttpSink();
  const logger = recordingLogger();
  const service = await startTestService(
    { jdbcUrl: `jdbc:postgresql://${proxy.host}:${proxy.port}/${db.name}`, user: db.user },
    `
database:
  migrate: true
destinations:
  sink:
    type: http
    baseUrl: ${sink.url}
    path: /events
routes:
  - topicPattern: "**"
    destination: sink
sources:
  hooks:
    path: /hooks
    idempotencyKeyPath: $.id
    topic: hooks.received
`,
    {},
    logger,
  ).catch(async (error: unknown) => {
    await Promise.allSettled([sink.close(), proxy.close().then(() => db.drop())]);
    throw error;
  });
  const timed = async (path: string, init?: RequestInit): Promise<TimedAnswer> => {
    const started = performance.now();
    const response = await fetch(`${service.base}${path}`, init);
    const body = await response.text();
    return { status: response.status, body, ms: performance.now() - started };
  };
  return {
    db,
    proxy,
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
      await proxy.close();
      await db.drop();
    },
  };
}
