/**
 * The whole configuration tree of spec §12.2 with its defaults. Ranges and checks that need no
 * other key live on the field; rules across keys are in `rules/` and run on the parsed tree.
 */
import { DEFAULT_INBOX_COLUMNS, DEFAULT_OUTBOX_COLUMNS } from '@queuebox/core';
import { v, defaulted, listOf, section, type SectionOutput } from './kit.js';
import { inboundAuthBlock, transformBlock } from './blocks.js';
import { glob, nonBlank, sqlIdentifier } from './checks.js';
import { contributedKinds, type BrokerConfigSource, type ContributedKind } from './contributed.js';
import {
  destinationsMap,
  type destinationCommon,
  type HttpDestinationEntries,
} from './destinations.js';
import { bool, int, ms, oneOf, opt, optInt, optSecret, optText, str, text } from './scalars.js';
import {
  sourcesMap,
  type brokerShared,
  type HttpSourceEntries,
  type sourceShared,
} from './sources.js';
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

/** An `http` destination as parsed. */
export type RawHttpDestination = { type: 'http' } & SectionOutput<HttpDestinationEntries>;
/** A broker's destination as parsed: the shared keys, and its own keys as its block reads them. */
export type RawBrokerDestination = { type: string } & SectionOutput<typeof destinationCommon> & {
    readonly [key: string]: unknown;
  };
export type RawDestination = RawHttpDestination | RawBrokerDestination;
export type RawHttpSource = { type: 'http' } & SectionOutput<HttpSourceEntries>;
export type RawBrokerSource = { type: string } & SectionOutput<typeof sourceShared> &
  SectionOutput<typeof brokerShared> & { readonly [key: string]: unknown };
export type RawSource = RawHttpSource | RawBrokerSource;

const buildConfigSchema = (brokers: readonly ContributedKind[]) =>
  section({
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
    destinations: destinationsMap(brokers) as unknown as v.GenericSchema<
      unknown,
      Record<string, RawDestination>
    >,
    routes: listOf(
      section({
        topicPattern: v.pipe(text, glob('any number of segments')),
        destination: nonBlank,
        routingKeyTemplate: optText,
        routingKeyMissingFieldDefault: str(''),
        transform: transformBlock,
      }),
    ),
    sources: sourcesMap(brokers) as unknown as v.GenericSchema<unknown, Record<string, RawSource>>,
    retention: defaulted({ enabled: bool(false), outbox: retentionTable, inbox: retentionTable }),
  });

export type RawConfig = v.InferOutput<ReturnType<typeof buildConfigSchema>>;

export interface ConfigSchemas {
  /** The tree's shape: what the variable reader binds and the docs list. */
  readonly schema: ReturnType<typeof buildConfigSchema>;
  /** The schema with the rules across keys: what a load parses. */
  readonly checked: v.GenericSchema<unknown, RawConfig>;
  readonly brokers: readonly ContributedKind[];
}

const built = new WeakMap<readonly BrokerConfigSource[], ConfigSchemas>();

/**
 * The schema for the given brokers, built once per list (the app and the tests hand the same
 * list to every load, and building it costs the start).
 */
export function configSchemas(brokers: readonly BrokerConfigSource[]): ConfigSchemas {
  let schemas = built.get(brokers);
  if (schemas === undefined) {
    const kinds = contributedKinds(brokers);
    const schema = buildConfigSchema(kinds);
    schemas = { schema, checked: v.pipe(schema, crossKeyRules(kinds)), brokers: kinds };
    built.set(brokers, schemas);
  }
  return schemas;
}

export type RawRoute = RawConfig['routes'][number];
export type RawInboundAuth = NonNullable<RawConfig['admin']['auth']>;
export type RawSourceAuth = NonNullable<RawHttpSource['auth']>;
export type RawTransform = NonNullable<RawRoute['transform']>;
