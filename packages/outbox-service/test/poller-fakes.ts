import type {
  LogFields,
  Logger,
  OutboxMessage,
  PublishOutcome,
  PublishRequest,
  Publisher,
} from '@queuebox/core';
import type { MessageRouter, RoutingResult } from '../src/routing/message-router.js';
import type { PipelineResult, TransformPipeline } from '../src/transform/transform-pipeline.js';
import type { TransformStage } from '../src/transform/transform-stage.js';

/** Unit-test fakes of the ports around the poller (publisher, router, pipeline, logger). */

export interface LogLine {
  readonly level: 'debug' | 'info' | 'warn' | 'error';
  readonly message: string;
  readonly fields: LogFields;
}

/** A Logger that keeps every line with the fields of its child chain merged in. */
export class RecordingLogger implements Logger {
  constructor(
    readonly lines: LogLine[] = [],
    private readonly fields: LogFields = {},
  ) {}

  debug(message: string, fields?: LogFields): void {
    this.push('debug', message, fields);
  }
  info(message: string, fields?: LogFields): void {
    this.push('info', message, fields);
  }
  warn(message: string, fields?: LogFields): void {
    this.push('warn', message, fields);
  }
  error(message: string, fields?: LogFields): void {
    this.push('error', message, fields);
  }
  child(fields: LogFields): Logger {
    return new RecordingLogger(this.lines, { ...this.fields, ...fields });
  }

  messages(level?: LogLine['level']): string[] {
    return this.lines.filter((l) => level === undefined || l.level === level).map((l) => l.message);
  }

  private push(level: LogLine['level'], message: string, fields?: LogFields): void {
    this.lines.push({ level, message, fields: { ...this.fields, ...fields } });
  }
}

type PublishBehaviour = (request: PublishRequest) => PublishOutcome | Promise<PublishOutcome>;

/** A publisher that records requests and the largest number of concurrent publishes. */
export class FakePublisher implements Publisher {
  readonly requests: PublishRequest[] = [];
  inFlight = 0;
  maxInFlight = 0;

  constructor(
    readonly type: Publisher['type'] = 'http',
    private readonly destinations: readonly string[] | 'all' = 'all',
    public behaviour: PublishBehaviour = () => ({ ok: true }),
  ) {}

  supports(destination: string): boolean {
    return this.destinations === 'all' || this.destinations.includes(destination);
  }

  async publish(request: PublishRequest): Promise<PublishOutcome> {
    this.requests.push(request);
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      return await this.behaviour(request);
    } finally {
      this.inFlight--;
    }
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

/** Resolves after `ms`, or rejects with the abort reason when `signal` aborts first. */
export function delay(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason as Error);
      return;
    }
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason as Error);
      },
      { once: true },
    );
  });
}

export type FakeRoute = Partial<RoutingResult> & { readonly destination: string };

/** Routes by exact topic; `*` is the fallback; a topic with neither has no route. */
export function fakeRouter(routes: Readonly<Record<string, FakeRoute>>): MessageRouter {
  const resolve = (topic: string): FakeRoute | undefined => routes[topic] ?? routes['*'];
  return {
    route(message: OutboxMessage): RoutingResult | null {
      const route = resolve(message.topic);
      if (!route) return null;
      return {
        destinationType: 'http',
        routeTransform: null,
        destinationTransform: null,
        routingKey: null,
        address: null,
        ...route,
      };
    },
    destinationOf: (topic) => resolve(topic)?.destination ?? null,
  };
}

/** A stage marker: the fake pipeline does the work, the router only says a transform exists. */
export const transformStage: TransformStage = {
  onError: 'Fail',
  keyPath: 'routes[0].transform.expression',
  evaluate: () => Promise.reject(new Error('the fake pipeline evaluates, not the stage')),
};

export function fakePipeline(
  run: (message: OutboxMessage) => PipelineResult | Promise<PipelineResult>,
): TransformPipeline {
  return { run: async (message) => run(message) };
}

export const passThroughPipeline: TransformPipeline = fakePipeline((message) => ({
  kind: 'success',
  payload: message.payload,
}));

/** Polls `check` until it holds, or fails after `timeoutMs`. */
export async function until(
  check: () => boolean,
  timeoutMs = 5_000,
  what = 'condition',
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}
