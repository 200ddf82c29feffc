/**
 * The whole configuration tree of spec §12.2 with its defaults. Ranges that need no other key
 * live on the field; rules across keys live in the validators.
 */
import { DEFAULT_INBOX_COLUMNS, DEFAULT_OUTBOX_COLUMNS } from '@queuebox/core';
import { inboundAuthBlock, transformBlock } from './schema-blocks.js';
import { destinationsMap } from './schema-destinations.js';
import { listOf, section, type Decoded, type Field } from './schema-kit.js';
import { bool, int, oneOf, optInt, optSecret, optStr, str } from './schema-scalars.js';
import { sourcesMap } from './schema-sources.js';

/** Column keys → default column names (spec §3.6). */
function columns<C extends string>(
  defaults: Readonly<Record<C, string>>,
): Field<Record<C, string>> {
  const fields = Object.fromEntries(
    Object.entries<string>(defaults).map(([key, def]) => [key, str({ def })]),
  ) as Record<C, Field<string>>;
  return section(fields) as Field<Record<C, string>>;
}

const retentionTable = section({
  policy: oneOf(['AGE', 'COUNT', 'DISABLED'], 'DISABLED'),
  // Durations stay text: they are parsed (and checked) only while retention is enabled.
  maxAge: optStr(),
  maxCount: optInt(),
  cleanupInterval: str({ def: '1h' }),
  batchSize: int({ def: 1000 }),
});

const ms = (def: number, min?: number): Field<number> =>
  int({ def, ms: true, ...(min === undefined ? {} : { min }) });

export const configSchema = section({
  server: section({
    httpPort: int({ def: 8080, min: 1, max: 65_535 }),
    managementPort: optInt({ min: 1, max: 65_535 }),
  }),
  database: section({
    type: str({ def: 'postgresql' }),
    url: str(),
    // Required, but a postgres:// URL may carry them; the validator decides.
    username: optStr(),
    password: optSecret(),
    poolSize: int({ def: 10, min: 1 }),
    connectionTimeoutMs: ms(30_000, 1),
    startupTimeoutMs: ms(60_000, 1),
    migrate: bool(true),
    outboxTableName: str({ def: 'outbox' }),
    inboxTableName: str({ def: 'inbox' }),
    columnMapping: section({
      outbox: columns(DEFAULT_OUTBOX_COLUMNS),
      inbox: columns(DEFAULT_INBOX_COLUMNS),
    }),
  }),
  outbox: section({
    pollIntervalMs: ms(100, 1),
    batchSize: int({ def: 100, min: 1 }),
    concurrency: int({ def: 8, min: 1 }),
    retryBaseDelayMs: ms(1000),
    maxAttempts: int({ def: 5, min: 1 }),
    claimTimeoutMs: ms(300_000, 1),
    pendingGaugeIntervalMs: ms(5000, 1),
    shutdownTimeoutMs: ms(30_000, 1),
    capture: section({
      mode: oneOf(['polling', 'postgres-logical', 'sqlserver-cdc'], 'polling'),
      enabled: bool(false),
      identity: str({ def: 'queuebox' }),
      stateDirectory: str({ def: '' }),
      schema: optStr(),
      publication: str({ def: 'queuebox_outbox' }),
      slot: str({ def: 'queuebox_outbox' }),
      reconciliationIntervalMs: ms(1000, 1),
      connection: section({
        hostname: optStr(),
        port: optInt({ min: 1, max: 65_535 }),
        database: optStr(),
        username: optStr(),
        password: optSecret(),
        encrypt: bool(true),
        trustServerCertificate: bool(false),
      }),
    }),
  }),
  inbox: section({
    basePath: str({ def: '/inbox' }),
    maxBodyBytes: int({ def: 1_048_576, min: 1, long: true }),
    relay: section({
      enabled: bool(true),
      pollIntervalMs: ms(100, 1),
      batchSize: int({ def: 100, min: 1 }),
      claimTimeoutMs: ms(300_000, 1),
      pendingGaugeIntervalMs: ms(5000, 1),
      maxAttempts: optInt({ min: 1 }),
    }),
  }),
  http: section({
    maxErrorBodyBytes: int({ def: 2048, min: 1 }),
    blockPrivateAddresses: bool(false),
  }),
  admin: section({
    enabled: bool(false),
    insecure: bool(false),
    auth: inboundAuthBlock,
    maxTransformTimeoutMs: ms(1000, 1),
    maxPayloadBytes: int({ def: 65_536, min: 1 }),
  }),
  destinations: destinationsMap,
  routes: listOf(
    section({
      topicPattern: str(),
      destination: str(),
      routingKeyTemplate: optStr(),
      routingKeyMissingFieldDefault: str({ def: '' }),
      transform: transformBlock,
    }),
  ),
  sources: sourcesMap,
  retention: section({ enabled: bool(false), outbox: retentionTable, inbox: retentionTable }),
});

export type RawConfig = typeof configSchema extends Field<infer T> ? T : never;
export type RawDestination = RawConfig['destinations'][string];
export type RawSource = RawConfig['sources'][string];
export type RawRoute = RawConfig['routes'][number];
export type RawInboundAuth = NonNullable<RawConfig['admin']['auth']>;
export type RawTransform = NonNullable<RawRoute['transform']>;
export type { Decoded };
