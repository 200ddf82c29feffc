/**
 * The brokers the package's tests load configurations with: the descriptors the app's registry
 * hands to `loadConfig`, in the order of their sections in the spec (§6.2–§6.4).
 */
import { descriptor as kafka } from '@queuebox/kafka/descriptor';
import { descriptor as nats } from '@queuebox/nats/descriptor';
import { descriptor as rabbitmq } from '@queuebox/rabbitmq/descriptor';
import {
  explainConfig as explainWith,
  loadConfig as loadWith,
  type LoadConfigOptions,
} from '../src/index.js';

// Everything else of the public API, so a test imports the package from one place.
export * from '../src/index.js';

export const BROKERS = [rabbitmq, kafka, nats];

/** `loadConfig` with every broker, as the app calls it. */
export const loadConfig = (options: LoadConfigOptions = {}) =>
  loadWith({ brokers: BROKERS, ...options });

/** `explainConfig` with every broker, as the app calls it. */
export const explainConfig = (options: LoadConfigOptions = {}) =>
  explainWith({ brokers: BROKERS, ...options });
