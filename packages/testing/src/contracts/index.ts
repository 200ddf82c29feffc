/**
 * The port contracts (dev only): one vitest suite per port, broker- and dialect-neutral.
 * `@queuebox/testing/contracts` is their only way in, so the main entry never loads a suite.
 */
export {
  brokerSourceContract,
  type BrokerProbe,
  type BrokerSourceHarness,
  type BrokerSourceTarget,
  type PublishedMessage,
} from './broker-source.js';
