import { describe, expect, it } from 'vitest';
import { databaseConfig } from '../../test/support.js';
import { poolOptions, sslFrom } from './pool.js';

describe('poolOptions', () => {
  it('maps the database settings onto postgres.js', () => {
    const options = poolOptions(
      databaseConfig({
        host: 'db.internal',
        port: 6543,
        database: 'orders',
        username: 'qb',
        password: 's3cret',
        poolSize: 7,
        connectionTimeoutMs: 2500,
      }),
    );
    expect(options).toMatchObject({
      host: 'db.internal',
      port: 6543,
      database: 'orders',
      username: 'qb',
      max: 7,
    });
    expect(options.connect_timeout).toBe(3);
    expect(typeof options.password).toBe('function');
    expect((options.password as () => string)()).toBe('s3cret');
    expect(options.onnotice).toBeTypeOf('function');
    expect(options.connection).toEqual({ application_name: 'queuebox' });
    expect(JSON.stringify(options)).not.toContain('s3cret');
  });

  it('reconnects within a second however many attempts failed', () => {
    const { backoff } = poolOptions(databaseConfig());
    expect(backoff).toBeTypeOf('function');
    const delay = backoff as (attempts: number) => number;
    for (const attempts of [0, 1, 3, 7, 20, 1000]) {
      for (let draw = 0; draw < 20; draw++) {
        const seconds = delay(attempts);
        expect(seconds).toBeGreaterThanOrEqual(0);
        expect(seconds).toBeLessThanOrEqual(1);
      }
    }
    expect(delay(0)).toBeLessThanOrEqual(0.05);
  });

  it('takes the first of several hosts', () => {
    const config = databaseConfig();
    const options = poolOptions({
      ...config,
      connection: {
        ...config.connection,
        hosts: [
          { host: 'a', port: 1 },
          { host: 'b', port: 2 },
        ],
      },
    });
    expect(options).toMatchObject({ host: 'a', port: 1 });
  });

  it('maps currentSchema and ApplicationName as pgjdbc does', () => {
    const options = poolOptions(
      databaseConfig({ params: { currentSchema: 'app', ApplicationName: 'orders' } }),
    );
    expect(options.connection).toEqual({ application_name: 'orders', search_path: 'app' });
  });

  it('refuses a URL without a host', () => {
    const config = databaseConfig();
    expect(() =>
      poolOptions({ ...config, connection: { ...config.connection, hosts: [] } }),
    ).toThrow(/names no host/);
  });
});

describe('sslFrom', () => {
  it('follows pgjdbc: prefer by default, ssl=true means verify-full', () => {
    expect(sslFrom({})).toBe('prefer');
    expect(sslFrom({ ssl: 'true' })).toBe('verify-full');
    expect(sslFrom({ ssl: 'false' })).toBe(false);
  });

  it('maps every sslmode', () => {
    expect(sslFrom({ sslmode: 'disable' })).toBe(false);
    expect(sslFrom({ sslmode: 'allow' })).toBe('allow');
    expect(sslFrom({ sslmode: 'prefer' })).toBe('prefer');
    expect(sslFrom({ sslmode: 'require' })).toBe('require');
    expect(sslFrom({ sslmode: 'verify-full', ssl: 'false' })).toBe('verify-full');
    expect(sslFrom({ sslmode: 'verify-ca' })).toMatchObject({ rejectUnauthorized: true });
  });

  it('refuses an unknown sslmode', () => {
    expect(() => sslFrom({ sslmode: 'sometimes' })).toThrow(/sslmode=sometimes/);
  });
});
