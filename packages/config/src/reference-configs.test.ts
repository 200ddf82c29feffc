import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../test/brokers.js';

/** The example configurations that ship with QueueBox 0.8.1 (an unchanged copy of the spec's
 * reference-configs/ in testdata/); each must load unchanged. */
const DIRECTORY = fileURLToPath(new URL('../testdata/reference-configs', import.meta.url));
const FILES = readdirSync(DIRECTORY)
  .filter((name) => name.endsWith('.yml'))
  .sort();

const env = (file: string) => ({
  QUEUEBOX_CONFIG_FILE: join(DIRECTORY, file),
  QUEUEBOX_DATABASE_URL: 'jdbc:postgresql://localhost:5432/queuebox',
  QUEUEBOX_DATABASE_USERNAME: 'queuebox',
  QUEUEBOX_DATABASE_PASSWORD: 'queuebox',
});

describe('reference configurations', () => {
  it('finds the eight example files', () => {
    expect(FILES).toEqual([
      'cdc.yml',
      'http-fanout.yml',
      'kafka-bridge.yml',
      'nats-bridge.yml',
      'pull.yml',
      'quickstart.yml',
      'rabbitmq-bridge.yml',
      'webhook-receiver.yml',
    ]);
  });

  it.each(FILES)('%s loads unchanged', (file) => {
    const config = loadConfig({ env: env(file), readFile: (path) => readFileSync(path, 'utf8') });
    expect(config.database.url).toBe('jdbc:postgresql://localhost:5432/queuebox');
    expect(config.database.password.reveal()).toBe('queuebox');
  });

  it('keeps what the quick start sets and defaults the rest', () => {
    const config = loadConfig({ env: env('quickstart.yml') });
    expect(Object.keys(config.destinations)).toEqual(['webhook-api', 'events-exchange']);
    expect(config.routes.map((route) => route.destination)).toEqual([
      'webhook-api',
      'webhook-api',
      'events-exchange',
    ]);
    expect(config.sources.github).toMatchObject({
      type: 'http',
      path: '/github',
      idempotencyKeyPath: ['$.delivery'],
      eventTypePath: ['$.action'],
    });
  });

  it('reads the capture example', () => {
    const config = loadConfig({ env: env('cdc.yml') });
    expect(config.outbox.capture).toMatchObject({
      mode: 'postgres-logical',
      enabled: true,
      stateDirectory: '/var/lib/queuebox/capture',
      reconciliationIntervalMs: 30_000,
      connection: { hostname: 'localhost', port: 5432, database: 'queuebox', username: 'queuebox' },
    });
  });

  it('reads the broker bridges and the pull source', () => {
    expect(loadConfig({ env: env('kafka-bridge.yml') }).sources.orders).toMatchObject({
      type: 'kafka',
      topics: ['orders'],
      topic: '{{ source }}',
    });
    expect(loadConfig({ env: env('nats-bridge.yml') }).sources.orders).toMatchObject({
      type: 'nats',
      filterSubject: 'orders.>',
    });
    expect(loadConfig({ env: env('pull.yml') }).sources.orders).toMatchObject({
      consumption: 'pull',
      topic: '{{ eventType }}',
    });
  });
});
