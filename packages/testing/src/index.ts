/**
 * @queuebox/testing (dev only): finds the real services the integration tests use, gives each
 * test file a database of its own, and (later) a TCP fault proxy. Never a runtime dependency.
 */
export * from './services.js';
export * from './postgres-database.js';
export * from './ports.js';
export * from './http-sink.js';
