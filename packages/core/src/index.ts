/**
 * @queuebox/core: the domain model (states, rows, errors, secrets), the ports that services
 * talk through, and pure helpers (sanitizer, topic glob, templates, backoff, header rules). It
 * performs no I/O and depends on nothing at run time.
 */
export * from './states.js';
export * from './model.js';
export * from './errors.js';
export * from './secret.js';
export * from './ports/index.js';
export * from './sanitizer.js';
export * from './topic-glob.js';
export * from './template.js';
export * from './backoff.js';
export * from './abortable-sleep.js';
export * from './doubling-backoff.js';
export * from './reconnect-schedule.js';
export * from './failure-streak.js';
export * from './conflated-wake-signal.js';
export * from './deadline-queue.js';
export * from './claim-watch.js';
export * from './claim-load.js';
export * from './statement-group.js';
export * from './in-hand-window.js';
export * from './java-hash.js';
export type * from './config/app-config.js';
export type * from './config/config-kit.js';
export * from './config/default-columns.js';
export * from './json-path.js';
export * from './header-rules.js';
export * from './header-precedence.js';
export * from './owned-headers.js';
export * from './wire-headers.js';
export * from './own-property.js';
export * from './broker/index.js';
export * from './trace-context.js';
export * from './sender-schemes.js';
export * from './correlation-id.js';

export * from './json-text.js';
export * from './json-payload.js';
export * from './sql-identifier.js';
export * from './sql/postgres-outbox-insert.js';
export * from './store/index.js';
