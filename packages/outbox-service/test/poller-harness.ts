import { Registry } from 'prom-client';
import type { NewOutboxMessage } from '@queuebox/core';
import { createOutboxMetrics, type OutboxMetrics } from '../src/metrics/outbox-metrics.js';
import type { MessageRouter } from '../src/routing/message-router.js';
import type { TransformPipeline } from '../src/transform/transform-pipeline.js';
import { PublisherRegistry } from '../src/publish/publisher-registry.js';
import { OutboxPoller, type OutboxPollerConfig } from '../src/poller/outbox-poller.js';
import { fakeRouter, passThroughPipeline } from './poller-fakes.js';
import { FakePublisher, InMemoryOutboxStore, RecordingLogger } from '@queuebox/testing';

export interface HarnessOptions {
  readonly config?: Partial<OutboxPollerConfig>;
  readonly router?: MessageRouter;
  readonly pipeline?: TransformPipeline;
  readonly publishers?: FakePublisher[];
  readonly store?: InMemoryOutboxStore;
}

/** A poller on the in-memory store with fast test timings; `close()` it in `afterEach`. */
export function pollerHarness(options: HarnessOptions = {}) {
  const store = options.store ?? new InMemoryOutboxStore();
  const registry = new Registry();
  const metrics: OutboxMetrics = createOutboxMetrics(registry);
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
  const poller = new OutboxPoller(config, {
    store,
    router: options.router ?? fakeRouter({ '*': { destination: 'orders' } }),
    pipeline: options.pipeline ?? passThroughPipeline,
    publishers: new PublisherRegistry(publishers),
    metrics,
    logger,
    // No jitter: delays are exactly base × 2^attempt.
    random: () => 0,
  });

  /** The value of one series, 0 when the series does not exist (yet). */
  async function metric(name: string, labels: Record<string, string> = {}): Promise<number> {
    const found = registry.getSingleMetric(name);
    if (!found) throw new Error(`no metric ${name}`);
    const { values } = await found.get();
    const match = values.find((v) => {
      const own = v.labels as Record<string, string | number | undefined>;
      return (
        Object.entries(labels).every(([k, val]) => own[k] === val) &&
        Object.keys(own).filter((k) => k !== 'quantile').length === Object.keys(labels).length &&
        !('quantile' in own)
      );
    });
    return match?.value ?? 0;
  }

  /** Count of a summary series (`<name>_count`). */
  async function timerCount(name: string, labels: Record<string, string> = {}): Promise<number> {
    const found = registry.getSingleMetric(name);
    if (!found) throw new Error(`no metric ${name}`);
    const { values } = await found.get();
    const match = values.find(
      (v) =>
        (v as { metricName?: string }).metricName === `${name}_count` &&
        Object.entries(labels).every(
          ([k, val]) => (v.labels as Record<string, unknown>)[k] === val,
        ),
    );
    return match?.value ?? 0;
  }

  async function insert(...messages: NewOutboxMessage[]): Promise<string[]> {
    const before = new Set(store.rows.keys());
    await store.insert(messages);
    return [...store.rows.keys()].filter((id) => !before.has(id));
  }

  return {
    store,
    registry,
    metrics,
    logger,
    publisher: publishers[0]!,
    publishers,
    config,
    poller,
    metric,
    timerCount,
    insert,
  };
}

export type PollerHarness = ReturnType<typeof pollerHarness>;
