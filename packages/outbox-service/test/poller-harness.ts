import type { DestinationConfig, NewOutboxMessage } from '@queuebox/core';
import { DestinationGates, type GateRoute } from '../src/gate/destination-gates.js';
import { destinationLimits } from '../src/limits/destination-limits.js';
import type { MessageRouter } from '../src/routing/message-router.js';
import type { TransformPipeline } from '../src/transform/transform-pipeline.js';
import { PublisherRegistry } from '../src/publish/publisher-registry.js';
import {
  OutboxPoller,
  type OutboxPollerConfig,
  type OutboxPollerDeps,
} from '../src/poller/outbox-poller.js';
import { fakeRouter, passThroughPipeline } from './poller-fakes.js';
import {
  createMemoryMetrics,
  FakePublisher,
  InMemoryOutboxStore,
  RecordingLogger,
} from '@queuebox/testing';

export interface HarnessOptions {
  readonly config?: Partial<OutboxPollerConfig>;
  readonly router?: MessageRouter;
  readonly pipeline?: TransformPipeline;
  readonly publishers?: FakePublisher[];
  readonly store?: InMemoryOutboxStore;
  readonly claimLoad?: OutboxPollerDeps['claimLoad'];
  readonly gates?: OutboxPollerDeps['gates'];
  readonly limits?: OutboxPollerDeps['limits'];
  /**
   * The destinations' `rateLimit`: builds the limits and registers their gates on `gates`, or
   * on gates of `gateRoutes` (the routes as the claim filter reads them).
   */
  readonly destinations?: Readonly<Record<string, Pick<DestinationConfig, 'rateLimit'>>>;
  readonly gateRoutes?: readonly GateRoute[];
  readonly tracing?: OutboxPollerDeps['tracing'];
}

/** A poller on the in-memory store with fast test timings; `close()` it in `afterEach`. */
export function pollerHarness(options: HarnessOptions = {}) {
  const store = options.store ?? new InMemoryOutboxStore();
  const metrics = createMemoryMetrics().outbox;
  const logger = new RecordingLogger();
  const publishers = options.publishers ?? [new FakePublisher()];
  const config: OutboxPollerConfig = {
    pollIntervalMs: 10,
    batchSize: 100,
    concurrency: 8,
    retryBaseDelayMs: 1000,
    claimTimeoutMs: 30_000,
    pendingGaugeIntervalMs: 5_000,
    shutdownTimeoutMs: 2_000,
    ...options.config,
  };
  const gates =
    options.gates ??
    (options.destinations ? new DestinationGates(options.gateRoutes ?? []) : undefined);
  const limits =
    options.limits ??
    (options.destinations ? destinationLimits(config, options.destinations, gates) : undefined);
  const poller = new OutboxPoller(config, {
    store,
    router: options.router ?? fakeRouter({ '*': { destination: 'orders' } }),
    pipeline: options.pipeline ?? passThroughPipeline,
    publishers: new PublisherRegistry(publishers),
    metrics,
    logger,
    // No jitter: delays are exactly base × 2^attempt.
    random: () => 0,
    ...(options.claimLoad ? { claimLoad: options.claimLoad } : {}),
    ...(gates ? { gates } : {}),
    ...(limits ? { limits } : {}),
    ...(options.tracing ? { tracing: options.tracing } : {}),
  });

  async function insert(...messages: NewOutboxMessage[]): Promise<string[]> {
    const before = new Set(store.rows.keys());
    await store.insert(messages);
    return [...store.rows.keys()].filter((id) => !before.has(id));
  }

  /** The publishes to `destination` the metrics counted with `outcome`. */
  const destinationCount = (outcome: 'success' | 'failure', destination = 'orders'): number =>
    metrics.destinationMessages.value({ destination, outcome });

  return {
    store,
    metrics,
    destinationCount,
    logger,
    publisher: publishers[0]!,
    publishers,
    config,
    poller,
    insert,
  };
}

export type PollerHarness = ReturnType<typeof pollerHarness>;
