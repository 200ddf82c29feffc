/**
 * @queuebox/testing (dev only): finds the real services the integration tests use, gives each
 * test file a database of its own, and a TCP fault proxy for outage tests. Never a runtime
 * dependency.
 */
export * from './services.js';
export * from './postgres-logical.js';
export * from './postgres-database.js';
export * from './ports.js';
export * from './http-sink.js';
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
