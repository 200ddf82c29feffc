import type { AppConfig, HttpSourceConfig } from '@queuebox/core';
import { describe, expect, it } from 'vitest';
import { curlLine, devBanner, exampleTopic } from './banner.js';
import type { EmbeddedPostgresAddress } from './embedded-postgres.js';

const source = (fields: Partial<HttpSourceConfig>): HttpSourceConfig =>
  ({
    type: 'http',
    path: '/stripe',
    idempotencyKeyPath: ['$.id'],
    eventTypePath: ['$.type'],
    idempotencyKeyHeader: null,
    eventTypeHeader: null,
    aggregateIdHeader: null,
    auth: null,
    ...fields,
  }) as HttpSourceConfig;

const config = (routes: string[], sources: Record<string, HttpSourceConfig>): AppConfig =>
  ({
    routes: routes.map((topicPattern) => ({ topicPattern, destination: 'd' })),
    sources,
    inbox: { basePath: '/inbox' },
    database: {
      outboxTableName: 'outbox',
      columnMapping: { outbox: { topic: 'topic', payload: 'payload' } },
    },
  }) as unknown as AppConfig;

const address: EmbeddedPostgresAddress = {
  dataDir: '/w/.queuebox/postgres',
  dataDirMovedBecause: null,
  port: 41234,
  database: 'queuebox',
  username: 'postgres',
  password: 'postgres',
  url: 'postgres://postgres:postgres@127.0.0.1:41234/queuebox',
  jdbcUrl: 'jdbc:postgresql://127.0.0.1:41234/queuebox',
  version: '18.4',
};

describe('the dev banner', () => {
  it('makes a topic each route takes', () => {
    const demo = config(['payment.*', 'order.*'], {});
    expect(exampleTopic(demo, 'first')).toBe('payment.created');
    expect(exampleTopic(demo, 'last')).toBe('order.created');
    expect(exampleTopic(config(['**'], {}), 'first')).toBe('example');
    expect(exampleTopic(config([], {}), 'first')).toBeNull();
  });

  it('puts the key and the type where the source reads them', () => {
    expect(curlLine('http://h/inbox/stripe', source({}), 'payment.created', 'evt_1')).toBe(
      `curl -X POST http://h/inbox/stripe -H 'Content-Type: application/json' -d '{"id":"evt_1","type":"payment.created"}'`,
    );
    expect(
      curlLine(
        'http://h/x',
        source({
          idempotencyKeyPath: ['$.data.object.id'],
          eventTypePath: [],
          eventTypeHeader: 'X-Type',
        }),
        't',
        "k'1",
      ),
    ).toBe(
      `curl -X POST http://h/x -H 'Content-Type: application/json' -H 'X-Type: t' -d '{"data":{"object":{"id":"k'\\''1"}}}'`,
    );
  });

  it('never prints a secret: authentication gets a placeholder', () => {
    const bearer = curlLine(
      'http://h/x',
      source({ auth: { type: 'bearer', token: { toString: () => '***' } } as never }),
      't',
      'k',
    );
    expect(bearer).toContain(`-H 'Authorization: Bearer $TOKEN'`);
  });

  it('tells where to write outbox rows, post webhooks, and find health and metrics', () => {
    const text = devBanner({
      config: config(['payment.*', 'order.*'], { stripe: source({}) }),
      postgres: address,
      dataPort: 8080,
      managementPort: null,
      receiverUrl: 'http://127.0.0.1:9999',
      exampleId: 'evt_x',
    });
    expect(text).toContain(
      'PostgreSQL URL for your application (write outbox rows here): postgres://postgres:postgres@127.0.0.1:41234/queuebox',
    );
    expect(text).toContain(
      `INSERT INTO outbox (topic, payload) VALUES ('order.created', '{"orderId": 42}');`,
    );
    expect(text).toContain('  stripe: http://127.0.0.1:8080/inbox/stripe');
    expect(text).toContain(`-d '{"id":"evt_x-stripe","type":"payment.created"}'`);
    expect(text).toContain(
      'Health: http://127.0.0.1:8080/health   Metrics: http://127.0.0.1:8080/metrics',
    );
  });
});
