import type { InboxStore, RelayConfig, SourceConfig } from '@queuebox/core';
import { recordingLogger, until } from '@queuebox/testing';
import { Registry } from 'prom-client';
import { InboxRelay } from '../src/relay/inbox-relay.js';

/**
 * Test support for the relay's unit tests: a relay with fast timings on a given store, its
 * metrics and logger. Claimed rows, the scripted store and the recording logger are
 * @queuebox/testing's.
 */
export const RELAY: RelayConfig = {
  enabled: true,
  pollIntervalMs: 10,
  batchSize: 3,
  claimTimeoutMs: 300_000,
  pendingGaugeIntervalMs: 5_000,
  maxAttempts: 6,
};

export function relayWith(
  store: InboxStore,
  options: {
    relay?: Partial<RelayConfig>;
    sources?: Record<string, SourceConfig>;
    nowMs?: () => number;
    onForwarded?: () => void;
  } = {},
) {
  const registry = new Registry();
  const logger = recordingLogger();
  const relay = new InboxRelay({
    store,
    relay: { ...RELAY, ...options.relay },
    sources: options.sources ?? { orders: { topic: 'in.{{ eventType }}' } as SourceConfig },
    registry,
    logger,
    nowMs: options.nowMs,
    onForwarded: options.onForwarded,
  });
  const value = async (name: string, labels: Record<string, string> = {}) => {
    const metric = await registry.getSingleMetric(name)?.get();
    const found = metric?.values.find((v) =>
      Object.entries(labels).every(([k, l]) => v.labels[k] === l),
    );
    return found?.value ?? 0;
  };
  return { relay, registry, logger, value };
}

/** `until` with the relay tests' shorter default timeout. */
export const waitFor = (condition: () => boolean, ms = 2_000): Promise<void> =>
  until(condition, ms);
