/**
 * The port contracts (dev only): one vitest suite per port, dialect- and broker-neutral. An
 * adapter runs a suite with a harness that builds it on a fresh database (or broker) and a probe
 * that reads and writes what the adapter stores; `@queuebox/testing/contracts` is their only way
 * in, so the main entry never loads a suite.
 */
export * from './probe.js';
export { reportSkippedSuites } from './skip-report.js';
export {
  LAYOUTS,
  RENAMED_INBOX,
  RENAMED_INBOX_COLUMNS,
  RENAMED_OUTBOX,
  RENAMED_OUTBOX_COLUMNS,
  RENAMED_NAMES,
  type Layout,
} from './layouts.js';
export { TestClock, setClock, type SetClock } from './test-clock.js';
export { outboxInsert, inboxInsert } from './messages.js';
export { outboxStoreContract, type OutboxHarness } from './outbox-store-contract.js';
export { inboxStoreContract, type InboxHarness } from './inbox-store-contract.js';
export { relayContract } from './relay-contract.js';
export {
  pullStatementsContract,
  type PulledRow,
  type PullHarness,
  type PullStatements,
} from './pull-statements-contract.js';
export {
  joinedByLowerCase,
  publisherContract,
  outboxMessage,
  type PublisherHarness,
  type PublisherOptions,
  type PublisherTarget,
  type ReceivedMessage,
} from './publisher-contract.js';
export {
  brokerSourceContract,
  type BrokerProbe,
  type BrokerSourceHarness,
  type BrokerSourceTarget,
  type PublishedMessage,
} from './broker-source.js';
export type { IngestFactory } from './broker-source-rules.js';
export { contractIngest, type ContractIngestDeps } from './contract-ingest.js';
