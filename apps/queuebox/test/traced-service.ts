/**
 * The real service in this process with tracing on, exporting to a real OTLP receiver. The SDK's
 * exporter reads its endpoint from the process environment, so the endpoint is set there for the
 * service's lifetime and the environment is put back once it has stopped.
 */
import { randomBytes } from 'node:crypto';
import {
  startOtlpReceiver,
  type FreshDatabase,
  type OtlpReceiver,
  type OtlpSpan,
} from '@queuebox/testing';
import { beforeAll } from 'vitest';
import { suiteScratch, type Scratch } from './scratch.js';
import { openDatabase, openService, type TestService } from './scratch-opens.js';
import { eventually } from './service.js';

export type OtlpProtocol = 'http/protobuf' | 'http/json';

/** `bytes` random bytes as hex: a trace id (16) or a span id (8). */
export const hex = (bytes: number): string => randomBytes(bytes).toString('hex');

/** The variables that turn tracing on, exporting over `protocol` with a short batch delay. */
export const tracingOn = (protocol: OtlpProtocol): Record<string, string> => ({
  OTEL_TRACES_EXPORTER: 'otlp',
  OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
  OTEL_BSP_SCHEDULE_DELAY: '100',
});

export interface TraceReceiver {
  readonly receiver: OtlpReceiver;
  /** The first exported span `find` accepts, once it has arrived. */
  span(find: (span: OtlpSpan) => boolean): Promise<OtlpSpan>;
}

export async function openReceiver(scratch: Scratch): Promise<TraceReceiver> {
  const receiver = await scratch.open(startOtlpReceiver(), (opened) => opened.close());
  return {
    receiver,
    span: (find) => eventually(() => receiver.spans().find(find), 20_000),
  };
}

export interface TracedService extends TraceReceiver {
  readonly service: TestService;
}

export async function openTracedService(
  scratch: Scratch,
  db: FreshDatabase,
  yaml: string,
  protocol: OtlpProtocol,
): Promise<TracedService> {
  const traces = await openReceiver(scratch);
  const saved = { ...process.env };
  process.env.OTEL_EXPORTER_OTLP_ENDPOINT = traces.receiver.url;
  scratch.defer(() => {
    process.env = saved;
  });
  const service = await openService(scratch, db, yaml, tracingOn(protocol));
  return { ...traces, service };
}

export interface TracedSuiteOptions {
  readonly pgUrl: string;
  /** The database name's prefix. */
  readonly database: string;
  readonly protocol: OtlpProtocol;
  /** Opens the file's broker scratch onto `scratch`; resolves to the service's YAML. */
  open(scratch: Scratch): Promise<string>;
}

export interface TracedSuite extends TracedService {
  readonly db: FreshDatabase;
}

/**
 * For a describe: a fresh database, the file's own scratch, then the traced service on them,
 * all closed after its last test. The fields are set once its beforeAll has run.
 */
export function tracedSuite(options: TracedSuiteOptions): TracedSuite {
  const scratch = suiteScratch();
  const suite = {} as { db: FreshDatabase } & TracedService;
  beforeAll(async () => {
    const db = await openDatabase(scratch, options.pgUrl, options.database);
    const yaml = await options.open(scratch);
    Object.assign(suite, { db }, await openTracedService(scratch, db, yaml, options.protocol));
  });
  return suite;
}
