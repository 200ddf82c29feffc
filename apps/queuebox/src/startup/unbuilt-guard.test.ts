import { loadConfig } from '@queuebox/config';
import { describe, expect, it } from 'vitest';
import { brokerConfigs, providers } from '../providers.js';
import { refuseUnbuiltFeatures, unbuiltFeatureProblems } from './unbuilt-guard.js';

const BASE = `
destinations:
  sink:
    type: http
    baseUrl: http://127.0.0.1:9
routes:
  - topicPattern: "**"
    destination: sink
`;

function config(yaml: string, env: Record<string, string> = {}) {
  return loadConfig({
    brokers: brokerConfigs,
    env: {
      QUEUEBOX_CONFIG_FILE: '/virtual/queuebox.yml',
      QUEUEBOX_DATABASE_URL: 'jdbc:postgresql://127.0.0.1:5432/test',
      QUEUEBOX_DATABASE_USERNAME: 'postgres',
      QUEUEBOX_DATABASE_PASSWORD: 'pw',
      ...env,
    },
    readFile: (path) => (path === '/virtual/queuebox.yml' ? `${BASE}${yaml}` : undefined),
  });
}

const CAPTURE = `
outbox:
  capture:
    enabled: true
    mode: MODE
    stateDirectory: /var/lib/queuebox/capture
`;

describe('settings this build cannot act on', () => {
  it('passes a configuration of built features, including a capture mode left disabled', () => {
    expect(unbuiltFeatureProblems(config(''))).toEqual([]);
    // A mode without `enabled` is a replica that does not own capture: it polls at
    // reconciliationIntervalMs, which this build does.
    expect(
      unbuiltFeatureProblems(config('outbox:\n  capture:\n    mode: postgres-logical\n')),
    ).toEqual([]);
  });

  it('passes enabled postgres-logical capture, which this build has', () => {
    expect(unbuiltFeatureProblems(config(CAPTURE.replace('MODE', 'postgres-logical')))).toEqual([]);
  });

  it('names an enabled capture mode whose provider the build lacks', () => {
    expect(() =>
      refuseUnbuiltFeatures(config(CAPTURE.replace('MODE', 'postgres-logical')), {
        postgresql: providers.postgresql,
      }),
    ).toThrow(
      'The configuration has 1 error. Fix each one and start QueueBox again.\n' +
        '  - outbox.capture.mode: capture mode postgres-logical is not available in this build of QueueBox; ' +
        'set outbox.capture.enabled to false and outbox.capture.mode to polling, and the outbox is ' +
        'delivered by polling every outbox.pollIntervalMs',
    );
  });

  it('names SQL Server and sqlserver-cdc capture, and every broker source, at once, in a build without @queuebox/sqlserver and @queuebox/kafka', () => {
    const withoutSqlServer = Object.fromEntries(
      Object.entries(providers).filter(
        ([name]) => !['sqlserver', 'sqlserver-cdc', 'kafka'].includes(name),
      ),
    );
    const problems = unbuiltFeatureProblems(
      config(
        `${CAPTURE.replace('MODE', 'sqlserver-cdc')}
sources:
  orders:
    type: kafka
    bootstrapServers: 127.0.0.1:9092
    topics: [orders]
    groupId: queuebox
    idempotencyKeyPath: $.id
  hooks:
    path: /hooks
    idempotencyKeyPath: $.id
    eventTypePath: $.type
`,
        {
          QUEUEBOX_DATABASE_TYPE: 'sqlserver',
          QUEUEBOX_DATABASE_URL: 'jdbc:sqlserver://127.0.0.1:1433;databaseName=q',
        },
      ),
      withoutSqlServer,
    );
    expect(problems).toEqual([
      'database.type: sqlserver databases are not available in this build of QueueBox; use postgresql',
      'outbox.capture.mode: capture mode sqlserver-cdc comes with the SQL Server package (@queuebox/sqlserver), ' +
        'which this build of QueueBox does not have; set outbox.capture.enabled to false and ' +
        'outbox.capture.mode to polling, and the outbox is delivered by polling every outbox.pollIntervalMs',
      'sources.orders: type kafka sources are not available in this build of QueueBox; use an http source',
    ]);
  });
  it('passes database.type sqlserver and its sqlserver-cdc capture, which this build has', () => {
    const sqlServer = {
      QUEUEBOX_DATABASE_TYPE: 'sqlserver',
      QUEUEBOX_DATABASE_URL: 'jdbc:sqlserver://127.0.0.1:1433;databaseName=q',
    };
    expect(unbuiltFeatureProblems(config('', sqlServer))).toEqual([]);
    expect(
      unbuiltFeatureProblems(config(CAPTURE.replace('MODE', 'sqlserver-cdc'), sqlServer)),
    ).toEqual([]);
    // The package without the mode's registry line: the plain text, not "comes with".
    const withoutMode = Object.fromEntries(
      Object.entries(providers).filter(([name]) => name !== 'sqlserver-cdc'),
    );
    expect(
      unbuiltFeatureProblems(
        config(CAPTURE.replace('MODE', 'sqlserver-cdc'), sqlServer),
        withoutMode,
      ),
    ).toEqual([
      'outbox.capture.mode: capture mode sqlserver-cdc is not available in this build of QueueBox; ' +
        'set outbox.capture.enabled to false and outbox.capture.mode to polling, and the outbox is ' +
        'delivered by polling every outbox.pollIntervalMs',
    ]);
  });
});
