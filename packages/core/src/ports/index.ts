export * from './clock.js';
export * from './logger.js';
export * from './wake-signal.js';
export * from './transformer.js';
export * from './publisher.js';
export * from './outbox-store.js';
export * from './database.js';
export * from './inbox-store.js';
