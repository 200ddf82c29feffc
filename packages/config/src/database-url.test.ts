import { describe, expect, it } from 'vitest';
import { loadConfig, maskUrl, parseDatabaseUrl } from '../test/brokers.js';
import { refusals } from '../test/load.js';

function parsed(url: string) {
  const result = parseDatabaseUrl(url);
  if (!result.ok) throw new Error(result.reason);
  return result.value;
}

describe('parseDatabaseUrl', () => {
  it('reads the JDBC PostgreSQL form with hosts, database and parameters', () => {
    expect(
      parsed('jdbc:postgresql://db1:5433,db2/queuebox?sslmode=require&application_name=qb'),
    ).toEqual({
      type: 'postgresql',
      connection: {
        hosts: [
          { host: 'db1', port: 5433 },
          { host: 'db2', port: 5432 },
        ],
        database: 'queuebox',
        params: { sslmode: 'require', application_name: 'qb' },
      },
      username: null,
      password: null,
    });
  });

  it('reads postgres:// and postgresql:// URLs with percent-decoded user-info', () => {
    expect(parsed('postgres://app:p%40ss@db.example.com/orders')).toMatchObject({
      connection: { hosts: [{ host: 'db.example.com', port: 5432 }], database: 'orders' },
      username: 'app',
      password: 'p@ss',
    });
    expect(parsed('postgresql://[::1]:6432/q')).toMatchObject({
      connection: { hosts: [{ host: '::1', port: 6432 }] },
      username: null,
    });
  });

  it('reads the JDBC SQL Server form with properties, an instance and the default port', () => {
    expect(
      parsed(
        'jdbc:sqlserver://sql1;databaseName=queuebox;encrypt=true;trustServerCertificate=false',
      ),
    ).toEqual({
      type: 'sqlserver',
      connection: {
        hosts: [{ host: 'sql1', port: 1433 }],
        database: 'queuebox',
        params: { encrypt: 'true', trustServerCertificate: 'false' },
      },
      username: null,
      password: null,
    });
    expect(parsed('jdbc:sqlserver://sql1\\SQLEXPRESS:1500;database=q')).toMatchObject({
      connection: {
        hosts: [{ host: 'sql1', port: 1500 }],
        database: 'q',
        params: { instanceName: 'SQLEXPRESS' },
      },
    });
    expect(
      parsed('jdbc:sqlserver://;serverName=sql2;portNumber=1444;databaseName=q').connection.hosts,
    ).toEqual([{ host: 'sql2', port: 1444 }]);
  });

  it('refuses a bad port and user-info in a JDBC PostgreSQL URL', () => {
    expect(parseDatabaseUrl('jdbc:postgresql://db:99999/q')).toEqual({
      ok: false,
      reason: "the port '99999' is not a number between 1 and 65535",
    });
    expect(parseDatabaseUrl('jdbc:postgresql://u:p@db/q')).toMatchObject({ ok: false });
  });
});

describe('database.url in a configuration', () => {
  const load = (env: Record<string, string>) => loadConfig({ env, readFile: () => undefined });
  const problems = (env: Record<string, string>): readonly string[] => refusals(() => load(env));

  it('takes missing credentials from a postgres:// URL, and the keys win over it', () => {
    const fromUrl = load({ QUEUEBOX_DATABASE_URL: 'postgres://app:pw@db/orders' });
    expect(fromUrl.database.username).toBe('app');
    expect(fromUrl.database.password.reveal()).toBe('pw');
    const keys = load({
      QUEUEBOX_DATABASE_URL: 'postgres://app:pw@db/orders',
      QUEUEBOX_DATABASE_USERNAME: 'ops',
      QUEUEBOX_DATABASE_PASSWORD: 'k',
    });
    expect(keys.database.username).toBe('ops');
    expect(keys.database.password.reveal()).toBe('k');
  });

  it('names the user as the database when a PostgreSQL URL names none', () => {
    expect(
      load({ QUEUEBOX_DATABASE_URL: 'postgres://app:pw@db' }).database.connection.database,
    ).toBe('app');
  });

  it('reads a SQL Server configuration', () => {
    const config = load({
      QUEUEBOX_DATABASE_TYPE: 'sqlserver',
      QUEUEBOX_DATABASE_URL: 'jdbc:sqlserver://sql:1433;databaseName=queuebox;encrypt=false',
      QUEUEBOX_DATABASE_USERNAME: 'sa',
      QUEUEBOX_DATABASE_PASSWORD: 'pw',
    });
    expect(config.database).toMatchObject({
      type: 'sqlserver',
      connection: { database: 'queuebox', params: { encrypt: 'false' } },
    });
  });

  it('refuses a URL that does not match database.type, and an unknown type', () => {
    expect(
      problems({
        QUEUEBOX_DATABASE_URL: 'jdbc:sqlserver://sql;databaseName=q',
        QUEUEBOX_DATABASE_USERNAME: 'u',
        QUEUEBOX_DATABASE_PASSWORD: 'p',
      }),
    ).toEqual([
      'database.url: must match database.type postgresql: start it with jdbc:postgresql://, postgres:// or postgresql:// (set by QUEUEBOX_DATABASE_URL)',
    ]);
    expect(
      problems({
        QUEUEBOX_DATABASE_TYPE: 'oracle',
        QUEUEBOX_DATABASE_URL: 'jdbc:oracle:thin:@x',
        QUEUEBOX_DATABASE_USERNAME: 'u',
        QUEUEBOX_DATABASE_PASSWORD: 'p',
      }),
    ).toEqual([
      "database.type: Unknown database type 'oracle'; set one of postgresql, sqlserver (set by QUEUEBOX_DATABASE_TYPE)",
    ]);
  });

  it('reports every missing part of the database block at once', () => {
    expect(problems({ QUEUEBOX_OUTBOX_BATCHSIZE: '5' })).toEqual([
      'database.url: required; set it in the YAML file or with QUEUEBOX_DATABASE_URL',
      'database.username: required; set it in the YAML file or with QUEUEBOX_DATABASE_USERNAME',
      'database.password: required; set it in the YAML file or with QUEUEBOX_DATABASE_PASSWORD',
    ]);
  });
});

describe('maskUrl', () => {
  it.each([
    ['amqp://guest:guest@rabbitmq:5672', 'amqp://guest:***@rabbitmq:5672'],
    ['postgres://app:p@ss/w@db:5432/q', 'postgres://app:***@db:5432/q'],
    ['amqp://rabbit:5672/vh', 'amqp://rabbit:5672/vh'],
    [
      'https://api.example.com/users/me@example.com',
      'https://api.example.com/users/me@example.com',
    ],
    [
      'jdbc:postgresql://db:5432/app?user=app&password=hunter2&ssl=true',
      'jdbc:postgresql://db:5432/app?user=app&password=***&ssl=true',
    ],
    [
      'jdbc:sqlserver://sql;databaseName=q;password=hunter2;encrypt=true',
      'jdbc:sqlserver://sql;databaseName=q;password=***;encrypt=true',
    ],
    ['nats://token@nats:4222', 'nats://token@nats:4222'],
  ])('%s → %s', (url, masked) => {
    expect(maskUrl(url)).toBe(masked);
  });
});
