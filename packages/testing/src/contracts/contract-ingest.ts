import { randomUUID } from 'node:crypto';
import {
  systemClock,
  type Clock,
  type DeliveryHandler,
  type InboxMetrics,
  type InboxStore,
  type Logger,
  type Transformer,
} from '@queuebox/core';
import { fakeTransformer } from '../fakes/fake-transformer.js';
import { createMemoryMetrics } from '../memory-metrics.js';
import type { IngestFactory } from './broker-source-rules.js';

/**
 * The broker source contract's ingest: the shared broker ingest for source 'contract' with no
 * transform expressions, memory metrics, the system clock and random ids. `create` is
 * inbox-service's `createBrokerIngest`, passed in because testing cannot import the service
 * (the service's own tests import testing).
 */
export function contractIngest<C>(
  create: (sourceName: string, config: C, deps: ContractIngestDeps) => DeliveryHandler,
  config: C,
): IngestFactory {
  return ({ store, logger, maxBodyBytes }) =>
    create('contract', config, contractDeps(store, logger, maxBodyBytes));
}

/** What the shared broker ingest takes (inbox-service's `BrokerIngestDeps`). */
export type ContractIngestDeps = ReturnType<typeof contractDeps>;

function contractDeps(store: InboxStore, logger: Logger, maxBodyBytes: number) {
  const clock: Clock = systemClock;
  const transformer: Transformer = fakeTransformer({});
  const metrics: InboxMetrics = createMemoryMetrics().inbox;
  return { store, transformer, logger, metrics, clock, newId: randomUUID, maxBodyBytes };
}
