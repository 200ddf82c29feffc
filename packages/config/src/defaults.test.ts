import { Secret, type AppConfig } from '@queuebox/core';
import {
  hmacAuth,
  httpSource,
  kafkaDestination,
  kafkaSource,
  natsDestination,
  natsSource,
  rabbitDestination,
  rabbitSource,
} from '@queuebox/testing';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../test/brokers.js';

const DB_ENV = {
  QUEUEBOX_DATABASE_URL: 'jdbc:postgresql://localhost:5432/queuebox',
  QUEUEBOX_DATABASE_USERNAME: 'queuebox',
  QUEUEBOX_DATABASE_PASSWORD: 'secret',
};

function loadYaml(yaml: string): AppConfig {
  return loadConfig({
    env: { ...DB_ENV, QUEUEBOX_CONFIG_FILE: '/cfg.yml' },
    readFile: (path) => (path === '/cfg.yml' ? yaml : undefined),
  });
}

const OUTBOX_COLUMNS = {
  id: 'id',
  topic: 'topic',
  key: 'key',
  aggregateType: 'aggregate_type',
  payload: 'payload',
  headers: 'headers',
  state: 'state',
  attempt: 'attempt',
  maxAttempts: 'max_attempts',
  scheduledAt: 'scheduled_at',
  createdAt: 'created_at',
  updatedAt: 'updated_at',
  claimedAt: 'claimed_at',
  claimToken: 'claim_token',
  leaseExpiresAt: 'lease_expires_at',
  lastError: 'last_error',
  sequence: 'sequence',
};
const INBOX_COLUMNS = {
  id: 'id',
  source: 'source',
  idempotencyKey: 'idempotency_key',
  aggregateId: 'aggregate_id',
  eventType: 'event_type',
  payload: 'payload',
  state: 'state',
  createdAt: 'created_at',
  processedAt: 'processed_at',
  claimedAt: 'claimed_at',
  claimToken: 'claim_token',
  leaseExpiresAt: 'lease_expires_at',
  correlationId: 'correlation_id',
  consumption: 'consumption',
  scheduledAt: 'scheduled_at',
  attempt: 'attempt',
  lastError: 'last_error',
  headers: 'headers',
};

const RETENTION_DEFAULT = {
  policy: 'DISABLED',
  maxAgeMs: null,
  maxCount: null,
  cleanupIntervalMs: 3_600_000,
  batchSize: 1000,
};

describe('defaults (spec §12.2)', () => {
  it('fills every key of a configuration that sets only the database trio', () => {
    const config = loadConfig({ env: DB_ENV, readFile: () => undefined });

    expect(config).toEqual({
      server: { httpPort: 8080, managementPort: null },
      database: {
        type: 'postgresql',
        url: 'jdbc:postgresql://localhost:5432/queuebox',
        connection: {
          hosts: [{ host: 'localhost', port: 5432 }],
          database: 'queuebox',
          params: {},
        },
        username: 'queuebox',
        password: expect.any(Secret),
        poolSize: 10,
        connectionTimeoutMs: 30_000,
        startupTimeoutMs: 60_000,
        migrate: true,
        outboxTableName: 'outbox',
        inboxTableName: 'inbox',
        columnMapping: { outbox: OUTBOX_COLUMNS, inbox: INBOX_COLUMNS },
      },
      outbox: {
        pollIntervalMs: 100,
        batchSize: 100,
        concurrency: 8,
        retryBaseDelayMs: 1000,
        maxAttempts: 5,
        claimTimeoutMs: 300_000,
        pendingGaugeIntervalMs: 5000,
        shutdownTimeoutMs: 30_000,
        capture: {
          mode: 'polling',
          enabled: false,
          identity: 'queuebox',
          stateDirectory: '',
          schema: null,
          publication: 'queuebox_outbox',
          slot: 'queuebox_outbox',
          reconciliationIntervalMs: 1000,
          connection: {
            hostname: 'localhost',
            port: 5432,
            database: 'queuebox',
            username: 'queuebox',
            password: expect.any(Secret),
            encrypt: true,
            trustServerCertificate: false,
          },
        },
      },
      inbox: {
        basePath: '/inbox',
        maxBodyBytes: 1_048_576,
        relay: {
          enabled: true,
          pollIntervalMs: 100,
          batchSize: 100,
          claimTimeoutMs: 300_000,
          pendingGaugeIntervalMs: 5000,
          maxAttempts: 5,
        },
      },
      http: { maxErrorBodyBytes: 2048, blockPrivateAddresses: false },
      admin: {
        enabled: false,
        insecure: false,
        auth: null,
        maxTransformTimeoutMs: 1000,
        maxPayloadBytes: 65_536,
      },
      destinations: {},
      routes: [],
      sources: {},
      retention: { enabled: false, outbox: RETENTION_DEFAULT, inbox: RETENTION_DEFAULT },
    });
    expect(config.database.password.reveal()).toBe('secret');
    expect(config.outbox.capture.connection.password?.reveal()).toBe('secret');
  });

  it('returns a deeply frozen object', () => {
    const config = loadConfig({ env: DB_ENV, readFile: () => undefined });
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.database.columnMapping.outbox)).toBe(true);
    expect(Object.isFrozen(config.database.connection.hosts[0])).toBe(true);
  });

  it('fills inbox.relay.maxAttempts from outbox.maxAttempts unless it is set', () => {
    expect(loadYaml('outbox: {maxAttempts: 9}').inbox.relay.maxAttempts).toBe(9);
    expect(
      loadYaml('outbox: {maxAttempts: 9}\ninbox: {relay: {maxAttempts: 3}}').inbox.relay
        .maxAttempts,
    ).toBe(3);
  });

  it('fills only the renamed columns and keeps the default names of the others', () => {
    const config = loadYaml(
      'database:\n  migrate: false\n  columnMapping:\n    outbox: {topic: event_topic}',
    );
    expect(config.database.columnMapping.outbox).toEqual({
      ...OUTBOX_COLUMNS,
      topic: 'event_topic',
    });
    expect(config.database.columnMapping.inbox).toEqual(INBOX_COLUMNS);
  });

  it('defaults every destination kind', () => {
    const config = loadYaml(`
destinations:
  web: {type: http, baseUrl: "https://api.example.com"}
  rabbit: {type: rabbitmq, url: "amqp://rabbit", exchange: events}
  stream: {type: kafka, bootstrapServers: "kafka:9092", topic: orders}
  subject: {type: nats, servers: "nats://nats:4222", subject: orders}
`);
    // Off unless written: every kind publishes as the reference does.
    const offUnlessWritten = { rateLimit: null, circuitBreaker: null };
    expect(config.destinations).toEqual({
      web: {
        type: 'http',
        baseUrl: 'https://api.example.com',
        path: '/',
        timeoutMs: 30_000,
        auth: null,
        signing: null,
        headers: {},
        transform: null,
        rateLimit: null,
        circuitBreaker: null,
      },
      rabbit: rabbitDestination({ url: 'amqp://rabbit', ...offUnlessWritten }),
      stream: kafkaDestination({
        bootstrapServers: 'kafka:9092',
        topic: 'orders',
        ...offUnlessWritten,
      }),
      subject: natsDestination({
        servers: 'nats://nats:4222',
        subject: 'orders',
        ...offUnlessWritten,
      }),
    });
  });

  it('defaults a circuit breaker written as an empty block, on every destination kind', () => {
    const config = loadYaml(`
destinations:
  web: {type: http, baseUrl: "https://api.example.com", circuitBreaker: {}}
  subject: {type: nats, servers: "nats://nats:4222", subject: orders, circuitBreaker: {openMs: 5000, failureRatePercent: 25}}
`);
    expect(config.destinations.web?.circuitBreaker).toEqual({
      failureThreshold: 5,
      failureRatePercent: null,
      windowMs: 60_000,
      minimumCalls: 20,
      openMs: 30_000,
      maxRetryAfterMs: 3_600_000,
    });
    expect(config.destinations.subject?.circuitBreaker).toMatchObject({
      openMs: 5_000,
      failureRatePercent: 25,
      failureThreshold: 5,
    });
  });

  it('defaults routes, transforms and the auth blocks', () => {
    const config = loadYaml(`
destinations:
  web:
    type: http
    baseUrl: "https://api.example.com"
    auth: {type: header, headerValue: "Bearer x"}
routes:
  - topicPattern: "order.*"
    destination: web
    transform: {expression: "$"}
admin:
  enabled: true
  auth: {type: api-key, key: k}
sources:
  signed:
    path: /signed
    idempotencyKeyHeader: X-Id
    consumption: pull
    auth: {type: hmac, secret: s}
  stamped:
    path: /stamped
    idempotencyKeyHeader: X-Id
    consumption: pull
    auth: {type: hmac, secret: s, timestampHeader: X-Timestamp}
`);
    expect(config.routes).toEqual([
      {
        topicPattern: 'order.*',
        destination: 'web',
        routingKeyTemplate: null,
        routingKeyMissingFieldDefault: '',
        transform: { expression: '$', timeoutMs: 100, maxDepth: 100, onError: 'Fail' },
      },
    ]);
    expect(config.destinations.web).toMatchObject({
      auth: { type: 'header', headerName: 'Authorization' },
    });
    expect(config.admin.auth).toEqual({
      type: 'api-key',
      key: expect.any(Secret),
      headerName: 'X-API-Key',
    });
    const hmac = hmacAuth({ secret: expect.any(Secret) });
    expect(config.sources.signed).toMatchObject({ auth: hmac });
    expect(config.sources.stamped).toMatchObject({
      auth: {
        ...hmac,
        timestampHeader: 'X-Timestamp',
        signaturePayloadFormat: 'TIMESTAMP_DOT_BODY',
      },
    });
  });

  it('defaults every source kind, with the per-kind topic and idempotency key path', () => {
    const config = loadYaml(`
sources:
  hook: {path: /hook, idempotencyKeyPath: $.id, eventTypePath: $.type}
  rabbit: {type: rabbitmq, queueName: q, connectionUrl: "amqp://rabbit"}
  stream: {type: kafka, bootstrapServers: "kafka:9092", topics: [orders], groupId: g}
  jet: {type: nats, servers: "nats://nats:4222", stream: ORDERS, durable: d}
`);
    expect(config.sources).toEqual({
      hook: httpSource({ path: '/hook', idempotencyKeyPath: ['$.id'], eventTypePath: ['$.type'] }),
      rabbit: rabbitSource({ queueName: 'q', connectionUrl: 'amqp://rabbit' }),
      stream: kafkaSource({ bootstrapServers: 'kafka:9092', topics: ['orders'], groupId: 'g' }),
      jet: natsSource({ servers: 'nats://nats:4222', stream: 'ORDERS', durable: 'd' }),
    });
  });

  it('converts durations to milliseconds and header filter rules to tests', () => {
    const config = loadYaml(`
sources:
  hook:
    path: /hook
    idempotencyKeyPath: [$.id, $.data.id]
    consumption: pull
    initialDelay: 2m
    scheduledAtHeader: X-Published
    filter:
      require:
        - {header: X-Tenant, equals: acme}
        - {header: X-Region, in: [eu, uk]}
      exclude:
        - {header: X-Kind, matches: "test.**"}
        - {header: X-Debug, exists: true}
retention:
  enabled: true
  outbox: {policy: AGE, maxAge: 7d, cleanupInterval: 30m}
  inbox: {policy: AGE, maxAge: 36h}
`);
    expect(config.sources.hook).toMatchObject({
      idempotencyKeyPath: ['$.id', '$.data.id'],
      initialDelayMs: 120_000,
      filter: {
        require: [
          { header: 'X-Tenant', test: { kind: 'equals', value: 'acme' } },
          { header: 'X-Region', test: { kind: 'in', values: ['eu', 'uk'] } },
        ],
        exclude: [
          { header: 'X-Kind', test: { kind: 'matches', glob: 'test.**' } },
          { header: 'X-Debug', test: { kind: 'exists' } },
        ],
      },
    });
    expect(config.retention.outbox).toEqual({
      ...RETENTION_DEFAULT,
      policy: 'AGE',
      maxAgeMs: 604_800_000,
      cleanupIntervalMs: 1_800_000,
    });
    expect(config.retention.inbox).toMatchObject({ policy: 'AGE', maxAgeMs: 129_600_000 });
  });
});
