import { describe, expect, it } from 'vitest';
import { explainConfig, type ExplainedSetting } from '../test/brokers.js';

const FILE = '/virtual/queuebox.yml';
const SECRET_FILE = '/virtual/hmac-secret';

const YAML = `
database:
  password: file-db-password-1
outbox:
  batchSize: 50
destinations:
  billing:
    type: http
    baseUrl: https://billing.example.com
    headers:
      X-Api-Key: header-secret-3
    auth:
      type: oauth2
      clientId: queuebox
      clientSecret: oauth-secret-4
      tokenUrl: https://auth.example.com/token
      extraParams:
        audience: billing
        client_assertion_token: param-secret-5
  events:
    type: rabbitmq
    url: amqp://guest:url-password-2@rabbitmq:5672
    exchange: events
routes:
  - topicPattern: "billing.*"
    destination: billing
sources:
  hooks:
    path: /hooks
    idempotencyKeyPath: $.id
    eventTypePath: $.type
    auth:
      type: hmac
      secret: file:${SECRET_FILE}
    filter:
      require:
        - header: X-Kind
          in: [a, b]
retention:
  enabled: true
  outbox:
    policy: AGE
    maxAge: 7d
`;

const ENV = {
  QUEUEBOX_CONFIG_FILE: FILE,
  QUEUEBOX_DATABASE_URL: 'jdbc:postgresql://127.0.0.1:5432/queuebox?password=env-url-password-6',
  QUEUEBOX_DATABASE_USERNAME: 'queuebox',
  QUEUEBOX_OUTBOX_POLLINTERVALMS: '250',
  QUEUEBOX_ADMIN_ENABLED: 'true',
  QUEUEBOX_ADMIN_AUTH_TYPE: 'bearer',
  QUEUEBOX_ADMIN_AUTH_TOKEN: 'env-admin-token-7',
};

const SECRETS = [
  'file-db-password-1',
  'url-password-2',
  'header-secret-3',
  'oauth-secret-4',
  'param-secret-5',
  'env-url-password-6',
  'env-admin-token-7',
  'hmac-file-secret-8',
];

function explain() {
  return explainConfig({
    env: ENV,
    readFile: (path) =>
      path === FILE ? YAML : path === SECRET_FILE ? 'hmac-file-secret-8\n' : undefined,
  });
}

function setting(settings: readonly ExplainedSetting[], path: string): ExplainedSetting {
  const found = settings.find((s) => s.path === path);
  if (found === undefined) throw new Error(`no setting ${path}`);
  return found;
}

describe('the effective configuration with its sources', () => {
  it('prints no secret, whether the file, a secret file or a variable set it', () => {
    const { settings, config } = explain();
    // The secrets really are loaded: the masking is in the printing.
    expect(config.database.password.reveal()).toBe('file-db-password-1');
    const text = JSON.stringify(settings);
    for (const secret of SECRETS) expect(text).not.toContain(secret);
    expect(setting(settings, 'database.password').value).toBe('Secret(***)');
    expect(setting(settings, 'admin.auth.token').value).toBe('Secret(***)');
    expect(setting(settings, 'sources.hooks.auth.secret').value).toBe('Secret(***)');
    expect(setting(settings, 'database.url').value).toBe(
      '"jdbc:postgresql://127.0.0.1:5432/queuebox?password=***"',
    );
    expect(setting(settings, 'destinations.events.url').value).toBe(
      '"amqp://guest:***@rabbitmq:5672"',
    );
    expect(setting(settings, 'destinations.billing.headers.X-Api-Key').value).toBe('***');
    expect(setting(settings, 'destinations.billing.auth.extraParams.audience').value).toBe(
      '"billing"',
    );
  });

  it('names the file, the variable or the default behind each value', () => {
    const { settings, fileName } = explain();
    expect(fileName).toBe(FILE);
    const origin = (path: string) => setting(settings, path).origin;
    expect(origin('outbox.batchSize')).toEqual({ kind: 'file', file: FILE });
    expect(origin('outbox.pollIntervalMs')).toEqual({
      kind: 'variable',
      names: ['QUEUEBOX_OUTBOX_POLLINTERVALMS'],
    });
    expect(origin('admin.auth.token')).toEqual({
      kind: 'variable',
      names: ['QUEUEBOX_ADMIN_AUTH_TOKEN'],
    });
    expect(origin('outbox.concurrency')).toEqual({ kind: 'default' });
    expect(origin('inbox.relay.maxAttempts')).toEqual({
      kind: 'default',
      from: 'outbox.maxAttempts',
    });
    // A duration is written `maxAge: 7d` and runs as milliseconds.
    expect(setting(settings, 'retention.outbox.maxAgeMs')).toEqual({
      path: 'retention.outbox.maxAgeMs',
      value: String(7 * 86_400_000),
      origin: { kind: 'file', file: FILE },
    });
    expect(setting(settings, 'sources.hooks.filter.require[0]')).toEqual({
      path: 'sources.hooks.filter.require[0]',
      value: '{ header: "X-Kind", in: ["a","b"] }',
      origin: { kind: 'file', file: FILE },
    });
    expect(setting(settings, 'routes[0].destination').value).toBe('"billing"');
    expect(setting(settings, 'outbox.batchSize').value).toBe('50');
  });

  it('lists every setting once and leaves out the parsed database URL', () => {
    const { settings } = explain();
    const paths = settings.map((s) => s.path);
    expect(new Set(paths).size).toBe(paths.length);
    expect(paths.some((path) => path.startsWith('database.connection.'))).toBe(false);
    expect(paths).toContain('database.connectionTimeoutMs');
    expect(paths).toContain('outbox.capture.connection.hostname');
    expect(paths).toContain('database.columnMapping.outbox.sequence');
  });

  it('fails as the start does', () => {
    expect(() =>
      explainConfig({
        env: { ...ENV, QUEUEBOX_OUTBOX_BATCHSZIE: '5' },
        readFile: (path) => (path === FILE ? YAML : undefined),
      }),
    ).toThrow(
      'QUEUEBOX_OUTBOX_BATCHSZIE: unknown variable; did you mean QUEUEBOX_OUTBOX_BATCHSIZE?',
    );
  });
});
