/**
 * @queuebox/testing (dev only): finds the real services the integration tests use, gives each
 * test file a database of its own, and a TCP fault proxy for outage tests. Never a runtime
 * dependency.
 */
export * from './services.js';
export * from './postgres-database.js';
export * from './ports.js';
export * from './http-sink.js';
export * from './fault-proxy.js';
