/**
 * The dialect-neutral store core: what every SQL database adapter does the same way (the
 * migrator's rules and Flyway's checksum and versions, the schema guard, table-name mapping,
 * redaction of driver texts, the start-up wait, the statement deadline, the retention checks
 * and the provider shell). An adapter keeps only its SQL, its driver and its error classifier.
 */
export * from './flyway-checksum.js';
export * from './flyway-versions.js';
export type * from './migration.js';
export * from './migration-history.js';
export * from './migration-run.js';
export * from './schema-guard.js';
export * from './table-names.js';
export * from './redact.js';
export * from './socket-codes.js';
export * from './store-error.js';
export * from './with-timeout.js';
export * from './wait-for-database.js';
export * from './statement-deadline.js';
export * from './retention-store.js';
export * from './database-provider.js';
export * from './sql-database.js';
export * from './capture-registry.js';
export * from './capture-server.js';
export * from './console-rows.js';
