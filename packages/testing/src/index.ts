/**
 * @queuebox/testing (dev only): finds the real services the integration tests use, gives each
 * test file a database of its own, a TCP fault proxy for outage tests, fakes of core's ports
 * (stores, transformer, logger) and fixtures of core's types. Never a runtime dependency, and it
 * depends on no service: what builds a service's own classes stays in that service's `test/`.
 */
export * from './services.js';
export * from './postgres-logical.js';
export * from './postgres-database.js';
export * from './ports.js';
export * from './database-config.js';
export * from './sqlserver-login.js';
export * from './http-sink.js';
export * from './otlp/otlp-receiver.js';
export * from './otlp/otlp-traces.js';
export * from './memory-metrics.js';
// A PostgreSQL of a test's own (to stop, crash or restart), from @queuebox/dev, where `queuebox
// dev` starts its embedded one: under root it runs as `postgres`, with programs and data where
// that user can reach them.
export {
  startPrivatePostgres,
  scratchDataDir,
  systemPostgresBinaries,
  type PrivatePostgres,
  type PrivatePostgresOptions,
  type PostgresBinaries,
} from '@queuebox/dev';

export * from './fault-proxy.js';

// Fakes of core's ports and fixtures of core's types, for the services' unit tests.
export * from './fakes/in-memory-outbox-store.js';
export * from './fakes/in-memory-inbox-store.js';
export * from './fakes/fake-transformer.js';
export * from './fakes/recording-logger.js';
export * from './fakes/recording-tracing.js';
export * from './fakes/fake-publisher.js';
export * from './fakes/scripted-inbox-store.js';
export * from './fakes/source-handlers.js';
export * from './fixtures/outbox-message.js';
export * from './fixtures/publish-request.js';
export * from './fixtures/routing-config.js';
export * from './fixtures/http-source.js';
export * from './fixtures/claimed-inbox-message.js';
export * from './fixtures/inbox-message.js';
export * from './wait.js';
export * from './suite-scope.js';
export * from './doc-examples.js';
export * from './rabbitmq-kit.js';
export { publishWithInt64Headers } from './amqp-raw-publish.js';
export * from './fixtures/broker-source.js';
export { brokerSourceDefaults, sourceDefaults } from './fixtures/source-defaults.js';
export * from './nats-kit.js';
export * from './kafka-kit.js';
export * from './kafka-private-broker.js';
