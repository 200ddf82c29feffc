/**
 * Builds the frozen AppConfig contract from a decoded tree that passed every rule: kind-specific
 * defaults (spec §7.1: topic, idempotency key path), durations in milliseconds, the parsed
 * database URL, and the post-validation normalisation of spec §12.2 (`inbox.relay.maxAttempts`
 * ← `outbox.maxAttempts`). Frozen, so no package can change what another one reads. Also its
 * printable form for the start log: secrets print their mask, URLs print with the password masked,
 * and static destination headers print masked (spec §16.3).
 */
import {
  Secret,
  senderScheme,
  type AppConfig,
  type CaptureConnectionConfig,
  type DatabaseConfig,
  type DatabaseType,
  type DestinationAuthConfig,
  type DestinationConfig,
  type DestinationRateLimit,
  type HeaderFilterConfig,
  type HeaderFilterRule,
  type InboundAuthConfig,
  type RetentionPolicyConfig,
  type SourceAuthConfig,
  type SourceConfig,
  type TransformConfig,
} from '@queuebox/core';
import type { ParsedDatabaseUrl } from './database-url.js';
import { defaultSourceTopic } from './rules/kinds.js';
import type {
  RawConfig,
  RawDestination,
  RawHttpDestination,
  RawInboundAuth,
  RawSource,
  RawSourceAuth,
  RawTransform,
} from './schema/config.js';
import { isHttpDestination, isHttpSource } from './schema/raw-kinds.js';
import type { ContributedKind } from './schema/contributed.js';
import { maskUrl, parseDuration } from './values.js';

export function assemble(
  raw: RawConfig,
  url: ParsedDatabaseUrl,
  brokers: readonly ContributedKind[],
): AppConfig {
  const database = assembleDatabase(raw, url);
  const outbox = raw.outbox;
  return {
    server: raw.server,
    database,
    outbox: {
      ...outbox,
      capture: { ...outbox.capture, connection: captureConnection(raw, database) },
    },
    inbox: {
      ...raw.inbox,
      relay: { ...raw.inbox.relay, maxAttempts: raw.inbox.relay.maxAttempts ?? outbox.maxAttempts },
    },
    http: raw.http,
    admin: { ...raw.admin, auth: inboundAuth(raw.admin.auth) },
    destinations: Object.fromEntries(
      Object.entries(raw.destinations).map(([name, destination]) => [
        name,
        assembleDestination(destination, brokers),
      ]),
    ),
    routes: raw.routes.map((route) => ({ ...route, transform: transform(route.transform) })),
    sources: Object.fromEntries(
      Object.entries(raw.sources).map(([name, source]) => [name, assembleSource(source, brokers)]),
    ),
    retention: {
      enabled: raw.retention.enabled,
      outbox: retention(raw.retention.outbox),
      inbox: retention(raw.retention.inbox),
    },
  };
}

function assembleDatabase(raw: RawConfig, url: ParsedDatabaseUrl): DatabaseConfig {
  const db = raw.database;
  const username = db.username ?? url.username ?? '';
  const connection = url.connection;
  return {
    ...db,
    type: db.type as DatabaseType,
    url: db.url.trim(),
    // PostgreSQL (libpq and JDBC alike) connects to the database named like the user when the URL names none.
    connection:
      connection.database === '' && url.type === 'postgresql'
        ? { ...connection, database: username }
        : connection,
    username,
    password: db.password ?? new Secret(url.password ?? ''),
  };
}

/** `outbox.capture.connection.*` defaults: host, port and database from the URL, credentials from `database`. */
function captureConnection(raw: RawConfig, database: DatabaseConfig): CaptureConnectionConfig {
  const given = raw.outbox.capture.connection;
  const hosts = database.connection.hosts;
  const hostname = given.hostname ?? (hosts.length === 1 ? (hosts[0]?.host ?? null) : null);
  const matching = hosts.find((h) => h.host === hostname);
  return {
    ...given,
    hostname,
    port: given.port ?? matching?.port ?? null,
    database: given.database ?? database.connection.database,
    username: given.username ?? database.username,
    password: given.password ?? database.password,
  };
}

function destinationAuth(raw: RawHttpDestination['auth']): DestinationAuthConfig | null {
  if (raw === null || raw === undefined) return null;
  switch (raw.type) {
    case 'oauth2':
      return { ...raw, tokenUrl: raw.tokenUrl.trim() };
    case 'basic':
      return { ...raw };
    case 'header':
      return { ...raw };
  }
}

/** The broker block of `type`; the schema admits no other broker type. */
function brokerOf(brokers: readonly ContributedKind[], type: string): ContributedKind {
  const broker = brokers.find((candidate) => candidate.name === type);
  if (broker === undefined) throw new Error(`no configuration block for type ${type}`);
  return broker;
}

function assembleDestination(
  raw: RawDestination,
  brokers: readonly ContributedKind[],
): DestinationConfig {
  const common = {
    headers: raw.headers,
    transform: transform(raw.transform),
    rateLimit: rateLimit(raw.rateLimit),
  };
  if (isHttpDestination(raw)) {
    return {
      ...raw,
      ...common,
      baseUrl: raw.baseUrl.trim(),
      auth: destinationAuth(raw.auth),
      signing:
        raw.signing === null
          ? null
          : { scheme: raw.signing.scheme, secrets: secretsOf(raw.signing) },
    };
  }
  // A broker's address is '' when its `<key>From` names the row column instead.
  const broker = brokerOf(brokers, raw.type);
  const { templateKey } = broker.address;
  return {
    ...raw,
    ...common,
    [templateKey]: raw[templateKey] ?? '',
    ...broker.block.destination.assemble?.(raw),
  } as unknown as DestinationConfig;
}

/**
 * A tenth of a second of tokens, at least one: enough slack that a dispatch a few milliseconds
 * late (a timer, a busy event loop) loses no token to a full bucket, and a burst the receiver
 * sees as a blip.
 */
export function defaultBurst(perSecond: number): number {
  return Math.max(1, Math.ceil(perSecond / 10));
}

function rateLimit(raw: RawDestination['rateLimit']): DestinationRateLimit | null {
  if (raw === null) return null;
  const { perSecond, burst, maxInFlight } = raw;
  return {
    perSecond,
    burst: perSecond === null ? null : (burst ?? defaultBurst(perSecond)),
    maxInFlight,
  };
}

function retention(raw: RawConfig['retention']['outbox']): RetentionPolicyConfig {
  return {
    policy: raw.policy,
    maxAgeMs: raw.maxAge === null ? null : (parseDuration(raw.maxAge) ?? null),
    maxCount: raw.maxCount,
    cleanupIntervalMs: parseDuration(raw.cleanupInterval) ?? 3_600_000,
    batchSize: raw.batchSize,
  };
}

/** Broker sources fall back to `$.id`; an HTTP source must name its key itself (spec §20 item 22). */
const BROKER_KEY_PATH = ['$.id'];

/** `SourceConfig` with the per-kind defaults of spec §7.1 (topic, idempotency key path). */
function assembleSource(raw: RawSource, brokers: readonly ContributedKind[]): SourceConfig {
  const common = {
    consumption: raw.consumption,
    topic: raw.topic ?? defaultSourceTopic(raw.type),
    idempotencyKeyPath: raw.idempotencyKeyPath ?? (isHttpSource(raw) ? [] : BROKER_KEY_PATH),
    aggregateIdPath: raw.aggregateIdPath ?? [],
    eventTypePath: raw.eventTypePath ?? [],
    idempotencyKeyExpression: raw.idempotencyKeyExpression,
    aggregateIdExpression: raw.aggregateIdExpression,
    eventTypeExpression: raw.eventTypeExpression,
    initialDelayMs: raw.initialDelay === null ? 0 : (parseDuration(raw.initialDelay) ?? 0),
    scheduledAtHeader: raw.scheduledAtHeader,
    scheduledAtPath: raw.scheduledAtPath ?? [],
    transform: transform(raw.transform),
    filter: raw.filter === null ? null : filter(raw.filter),
  };
  if (isHttpSource(raw)) {
    // A sender's own event id is the key when the source names none (its retries reuse it).
    const eventId =
      raw.idempotencyKeyHeader === null &&
      raw.idempotencyKeyPath === null &&
      raw.idempotencyKeyExpression === null &&
      raw.auth !== null
        ? (senderScheme(raw.auth.type)?.eventId ?? null)
        : null;
    return {
      ...common,
      type: 'http',
      path: raw.path,
      idempotencyKeyHeader:
        eventId !== null && 'header' in eventId ? eventId.header : raw.idempotencyKeyHeader,
      idempotencyKeyPath:
        eventId !== null && 'path' in eventId ? [eventId.path] : common.idempotencyKeyPath,
      eventTypeHeader: raw.eventTypeHeader,
      aggregateIdHeader: raw.aggregateIdHeader,
      auth: sourceAuth(raw.auth),
      rateLimit: raw.rateLimit,
    };
  }
  // A broker source: the shared keys, then its own in its block's order.
  const block = brokerOf(brokers, raw.type).block.source;
  return {
    ...common,
    type: raw.type,
    eventTypeFromHeader: raw.eventTypeFromHeader,
    attributeHeaders: raw.attributeHeaders,
    ...Object.fromEntries(Object.keys(block.keys).map((key) => [key, raw[key]])),
    ...block.assemble?.(raw),
  } as unknown as SourceConfig;
}

type RawRule = NonNullable<RawSource['filter']>['require'][number];

function filter(raw: NonNullable<RawSource['filter']>): HeaderFilterConfig {
  return { require: raw.require.map(rule), exclude: raw.exclude.map(rule) };
}

function rule(raw: RawRule): HeaderFilterRule {
  const header = raw.header;
  if (raw.equals !== null) return { header, test: { kind: 'equals', value: raw.equals } };
  if (raw.in !== null) return { header, test: { kind: 'in', values: raw.in } };
  if (raw.matches !== null) return { header, test: { kind: 'matches', glob: raw.matches } };
  return { header, test: { kind: 'exists' } };
}

/** Blocks that sources, destinations, routes and the admin routes share. */
function transform(raw: RawTransform | null): TransformConfig | null {
  return raw === null ? null : { ...raw };
}

/** `secret` or `secrets` as one list; the rules make sure exactly one of the two is set. */
function secretsOf(raw: { secret: Secret | null; secrets: Secret[] | null }): readonly Secret[] {
  return raw.secrets ?? (raw.secret === null ? [] : [raw.secret]);
}

function sourceAuth(raw: RawSourceAuth | null): SourceAuthConfig | null {
  if (raw === null) return null;
  switch (raw.type) {
    case 'standard-webhooks':
    case 'stripe':
      return {
        type: raw.type,
        secrets: secretsOf(raw),
        timestampToleranceMs: raw.timestampTolerance,
      };
    case 'github':
    case 'shopify':
      return { type: raw.type, secrets: secretsOf(raw) };
    default:
      return inboundAuth(raw);
  }
}

function inboundAuth(raw: RawInboundAuth | null | undefined): InboundAuthConfig | null {
  if (raw === null || raw === undefined) return null;
  switch (raw.type) {
    case 'bearer':
      return { type: 'bearer', token: raw.token };
    case 'api-key':
      return { type: 'api-key', key: raw.key, headerName: raw.headerName };
    case 'hmac': {
      const format = raw.signaturePayloadFormat;
      return {
        type: 'hmac',
        secret: raw.secret,
        headerName: raw.headerName,
        algorithm: raw.algorithm,
        signaturePrefix: raw.signaturePrefix,
        timestampHeader: raw.timestampHeader,
        timestampToleranceMs: raw.timestampTolerance,
        signaturePayloadFormat:
          format === null
            ? raw.timestampHeader === null
              ? 'BODY'
              : 'TIMESTAMP_DOT_BODY'
            : format === 'BODY' || format === 'body'
              ? 'BODY'
              : 'TIMESTAMP_DOT_BODY',
      };
    }
  }
}

/** Freezes a configuration tree so no package can change what another one reads. */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

export const URL_KEYS: ReadonlySet<string> = new Set([
  'url',
  'baseUrl',
  'tokenUrl',
  'connectionUrl',
  'servers',
]);
export const SECRET_PARAM = /password|pwd|secret|token/i;

export function describeConfig(config: AppConfig): string {
  return JSON.stringify(
    config,
    function (this: unknown, key: string, value: unknown): unknown {
      if (typeof value === 'string' && URL_KEYS.has(key)) return maskUrl(value);
      if (isRecord(value) && (key === 'headers' || key === 'params' || key === 'extraParams')) {
        return Object.fromEntries(
          Object.entries(value).map(([name, v]) => [
            name,
            key === 'headers' || SECRET_PARAM.test(name) ? '***' : v,
          ]),
        );
      }
      return value;
    },
    2,
  );
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
