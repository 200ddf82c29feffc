/**
 * The whole configuration tree of spec §12.2 with its defaults. Ranges and checks that need no
 * other key live on the field; rules across keys are in `rules/` and run on the parsed tree.
 */
import { DEFAULT_INBOX_COLUMNS, DEFAULT_OUTBOX_COLUMNS } from '@queuebox/core';
import { v, defaulted, listOf, section } from './kit.js';
import { inboundAuthBlock, transformBlock } from './blocks.js';
import { glob, nonBlank, sqlIdentifier } from './checks.js';
import { destinationsMap } from './destinations.js';
import { bool, int, ms, oneOf, opt, optInt, optSecret, optText, str, text } from './scalars.js';
import { sourcesMap } from './sources.js';
import { crossKeyRules } from '../rules/index.js';

const identifier = (def: string) => v.optional(v.pipe(text, sqlIdentifier), def);

/** Column keys → default column names (spec §3.6). */
function columns<C extends string>(defaults: Readonly<Record<C, string>>) {
  return Object.fromEntries(
    Object.entries<string>(defaults).map(([key, def]) => [key, identifier(def)]),
  ) as Record<C, ReturnType<typeof identifier>>;
}

const retentionTable = defaulted({
  policy: oneOf(['AGE', 'COUNT', 'DISABLED'], 'DISABLED'),
  // Durations stay text: they are parsed (and checked) only while retention is enabled.
  maxAge: optText,
  maxCount: optInt(),
  cleanupInterval: str('1h'),
  batchSize: int(1000),
});

const port = { min: 1, max: 65_535 };

export const configSchema = section({
  server: defaulted({ httpPort: int(8080, port), managementPort: optInt(port) }),
  database: defaulted({
    type: str('postgresql'),
    url: text,
    // Required, but a postgres:// URL may carry them; the database rules decide.
    username: optText,
    password: optSecret,
    poolSize: int(10, { min: 1 }),
    connectionTimeoutMs: ms(30_000),
    startupTimeoutMs: ms(60_000),
    migrate: bool(true),
    outboxTableName: identifier('outbox'),
    inboxTableName: identifier('inbox'),
    columnMapping: defaulted({
      outbox: defaulted(columns(DEFAULT_OUTBOX_COLUMNS)),
      inbox: defaulted(columns(DEFAULT_INBOX_COLUMNS)),
    }),
  }),
  outbox: defaulted({
    pollIntervalMs: ms(100),
    batchSize: int(100, { min: 1 }),
    concurrency: int(8, { min: 1 }),
    retryBaseDelayMs: ms(1000, 0),
    maxAttempts: int(5, { min: 1 }),
    claimTimeoutMs: ms(300_000),
    pendingGaugeIntervalMs: ms(5000),
    shutdownTimeoutMs: ms(30_000),
    capture: defaulted({
      mode: oneOf(['polling', 'postgres-logical', 'sqlserver-cdc'], 'polling'),
      enabled: bool(false),
      identity: str('queuebox'),
      stateDirectory: str(''),
      schema: optText,
      publication: str('queuebox_outbox'),
      slot: str('queuebox_outbox'),
      reconciliationIntervalMs: ms(1000),
      connection: defaulted({
        hostname: opt(nonBlank),
        port: optInt(port),
        database: optText,
        username: optText,
        password: optSecret,
        encrypt: bool(true),
        trustServerCertificate: bool(false),
      }),
    }),
  }),
  inbox: defaulted({
    basePath: str('/inbox'),
    maxBodyBytes: int(1_048_576, { min: 1, long: true }),
    relay: defaulted({
      enabled: bool(true),
      pollIntervalMs: ms(100),
      batchSize: int(100, { min: 1 }),
      claimTimeoutMs: ms(300_000),
      pendingGaugeIntervalMs: ms(5000),
      maxAttempts: optInt({ min: 1 }),
    }),
  }),
  http: defaulted({
    maxErrorBodyBytes: int(2048, { min: 1 }),
    blockPrivateAddresses: bool(false),
  }),
  admin: defaulted({
    enabled: bool(false),
    insecure: bool(false),
    auth: inboundAuthBlock,
    maxTransformTimeoutMs: ms(1000),
    maxPayloadBytes: int(65_536, { min: 1 }),
  }),
  destinations: destinationsMap,
  routes: listOf(
    section({
      topicPattern: v.pipe(text, glob('any number of segments')),
      destination: nonBlank,
      routingKeyTemplate: optText,
      routingKeyMissingFieldDefault: str(''),
      transform: transformBlock,
    }),
  ),
  sources: sourcesMap,
  retention: defaulted({ enabled: bool(false), outbox: retentionTable, inbox: retentionTable }),
});

/** The schema with the rules across keys: what a load parses. */
export const checkedConfigSchema = v.pipe(configSchema, crossKeyRules);

export type RawConfig = v.InferOutput<typeof configSchema>;
export type RawDestination = RawConfig['destinations'][string];
export type RawSource = RawConfig['sources'][string];
export type RawRoute = RawConfig['routes'][number];
export type RawInboundAuth = NonNullable<RawConfig['admin']['auth']>;
export type RawSourceAuth = NonNullable<Extract<RawSource, { type: 'http' }>['auth']>;
export type RawTransform = NonNullable<RawRoute['transform']>;
