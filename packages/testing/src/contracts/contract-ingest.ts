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

/** What the shared broker ingest takes (inbox-service's `BrokerIngestDeps`). */
export interface ContractIngestDeps {
  readonly store: InboxStore;
  readonly transformer: Transformer;
  readonly logger: Logger;
  readonly metrics: InboxMetrics;
  readonly clock: Clock;
  readonly newId: () => string;
  readonly maxBodyBytes?: number;
}

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
    create('contract', config, {
      store,
      transformer: fakeTransformer({}),
      logger,
      metrics: createMemoryMetrics().inbox,
      clock: systemClock,
      newId: randomUUID,
      maxBodyBytes,
    });
}
