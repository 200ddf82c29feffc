/**
 * Builds the AppConfig contract from a decoded tree that passed every rule: kind-specific
 * defaults, durations in milliseconds, the parsed database URL, and the post-validation
 * normalisation of spec §12.2 (`inbox.relay.maxAttempts` ← `outbox.maxAttempts`).
 */
import {
  Secret,
  type AppConfig,
  type CaptureConnectionConfig,
  type DatabaseConfig,
  type DatabaseType,
  type DestinationAuthConfig,
  type DestinationConfig,
  type RetentionPolicyConfig,
} from '@queuebox/core';
import { inboundAuth, transform } from './assemble-blocks.js';
import { assembleSource } from './assemble-sources.js';
import type { ParsedDatabaseUrl } from './database-url.js';
import type { RawConfig, RawDestination } from './schema/config.js';
import { parseDuration } from './values.js';

export function assemble(raw: RawConfig, url: ParsedDatabaseUrl): AppConfig {
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
        assembleDestination(destination),
      ]),
    ),
    routes: raw.routes.map((route) => ({ ...route, transform: transform(route.transform) })),
    sources: Object.fromEntries(
      Object.entries(raw.sources).map(([name, source]) => [name, assembleSource(source)]),
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

type RawHttpDestination = Extract<RawDestination, { type: 'http' }>;

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

function assembleDestination(raw: RawDestination): DestinationConfig {
  const common = { headers: raw.headers, transform: transform(raw.transform) };
  switch (raw.type) {
    case 'http':
      return { ...raw, ...common, baseUrl: raw.baseUrl.trim(), auth: destinationAuth(raw.auth) };
    case 'rabbitmq':
      return { ...raw, ...common, url: raw.url.trim(), exchange: raw.exchange ?? '' };
    case 'kafka':
      return { ...raw, ...common, topic: raw.topic ?? '' };
    case 'nats':
      return { ...raw, ...common, subject: raw.subject ?? '' };
  }
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
