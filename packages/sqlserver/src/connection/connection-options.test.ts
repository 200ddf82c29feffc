import { loadConfig } from '@queuebox/config';
import type { DatabaseConfig } from '@queuebox/core';
import { describe, expect, it } from 'vitest';
import {
  connectionConfig,
  encryptFrom,
  REQUEST_TIMEOUT_MS,
  urlNamesPort,
} from './connection-options.js';

/** The `database` block @queuebox/config builds from this URL, as the service would read it. */
function fromUrl(url: string, env: Record<string, string> = {}): DatabaseConfig {
  return loadConfig({
    env: {
      QUEUEBOX_DATABASE_TYPE: 'sqlserver',
      QUEUEBOX_DATABASE_URL: url,
      QUEUEBOX_DATABASE_USERNAME: 'queuebox_app',
      QUEUEBOX_DATABASE_PASSWORD: 's3cret!',
      ...env,
    },
    readFile: () => undefined,
  }).database;
}

const options = (url: string) => connectionConfig(fromUrl(url)).options ?? {};

describe('connectionConfig: the jdbc:sqlserver:// URL in tedious terms', () => {
  it('maps host, port, database and the login, with the defaults of mssql-jdbc', () => {
    const config = connectionConfig(
      fromUrl('jdbc:sqlserver://sql1.internal:1533;databaseName=orders', {
        QUEUEBOX_DATABASE_CONNECTIONTIMEOUTMS: '2500',
      }),
    );
    expect(config.server).toBe('sql1.internal');
    expect(config.authentication).toEqual({
      type: 'default',
      options: { userName: 'queuebox_app', password: 's3cret!' },
    });
    expect(config.options).toMatchObject({
      port: 1533,
      database: 'orders',
      // mssql-jdbc 10.2+ encrypts by default and checks the certificate.
      encrypt: true,
      trustServerCertificate: false,
      appName: 'queuebox',
      connectTimeout: 2500,
      requestTimeout: REQUEST_TIMEOUT_MS,
      useUTC: true,
      abortTransactionOnError: true,
      enableQuotedIdentifier: true,
    });
    expect(config.options).not.toHaveProperty('instanceName');
  });

  it('uses the default port 1433 when the URL names none', () => {
    expect(options('jdbc:sqlserver://sql1;databaseName=q')).toMatchObject({ port: 1433 });
  });

  it('keeps the request timeout at 30 s or more, above the 10 s claim lock wait (spec §9.2)', () => {
    expect(REQUEST_TIMEOUT_MS).toBeGreaterThanOrEqual(30_000);
  });

  it('connects to a named instance through the SQL Browser when the URL names no port', () => {
    const named = options('jdbc:sqlserver://sql1\\SQLEXPRESS;databaseName=q');
    expect(named).toMatchObject({ instanceName: 'SQLEXPRESS' });
    expect(named).not.toHaveProperty('port');
    const property = options('jdbc:sqlserver://sql1;instanceName=REPORTS;databaseName=q');
    expect(property).toMatchObject({ instanceName: 'REPORTS' });
    expect(property).not.toHaveProperty('port');
  });

  it('lets a port written in the URL win over the instance name, as mssql-jdbc does', () => {
    for (const url of [
      'jdbc:sqlserver://sql1\\SQLEXPRESS:1500;databaseName=q',
      'jdbc:sqlserver://sql1;instanceName=SQLEXPRESS;portNumber=1500;databaseName=q',
    ]) {
      const mapped = options(url);
      expect(mapped).toMatchObject({ port: 1500 });
      expect(mapped).not.toHaveProperty('instanceName');
    }
  });

  it('reads serverName, portNumber and databaseName properties', () => {
    const config = connectionConfig(
      fromUrl('jdbc:sqlserver://;serverName=sql2;portNumber=1444;databaseName=billing'),
    );
    expect(config.server).toBe('sql2');
    expect(config.options).toMatchObject({ port: 1444, database: 'billing' });
  });

  it('maps encrypt, trustServerCertificate and hostNameInCertificate, any letter case', () => {
    expect(
      options(
        'jdbc:sqlserver://sql1;databaseName=q;Encrypt=false;TrustServerCertificate=TRUE;hostNameInCertificate=*.db.internal',
      ),
    ).toMatchObject({ encrypt: false, trustServerCertificate: true, serverName: '*.db.internal' });
    expect(options('jdbc:sqlserver://sql1;databaseName=q;encrypt=strict')).toMatchObject({
      encrypt: 'strict',
    });
    expect(encryptFrom('mandatory')).toBe(true);
    expect(encryptFrom('optional')).toBe(false);
    expect(() => encryptFrom('maybe')).toThrow(
      "'database.url' has encrypt=maybe; use true, false or strict.",
    );
    expect(() =>
      options('jdbc:sqlserver://sql1;databaseName=q;trustServerCertificate=yes'),
    ).toThrow("'database.url' has trustServerCertificate=yes; use true or false.");
  });

  it('maps applicationName, applicationIntent and multiSubnetFailover', () => {
    expect(
      options(
        'jdbc:sqlserver://sql1;databaseName=q;applicationName=orders-qb;applicationIntent=ReadOnly;multiSubnetFailover=true',
      ),
    ).toMatchObject({ appName: 'orders-qb', readOnlyIntent: true, multiSubnetFailover: true });
  });

  it('refuses integratedSecurity clearly, before any connection', () => {
    expect(() => options('jdbc:sqlserver://sql1;databaseName=q;integratedSecurity=true')).toThrow(
      "'database.url' sets integratedSecurity, which QueueBox does not support: it logs in with SQL Server authentication only. Remove integratedSecurity from the URL and set 'database.username' and 'database.password' to a SQL Server login.",
    );
    // Written as false it asks for nothing QueueBox lacks.
    expect(() =>
      options('jdbc:sqlserver://sql1;databaseName=q;integratedSecurity=false'),
    ).not.toThrow();
  });

  it('refuses an Entra ID or Kerberos login, and accepts SqlPassword', () => {
    expect(() =>
      options('jdbc:sqlserver://sql1;databaseName=q;authentication=ActiveDirectoryMSI'),
    ).toThrow(/sets authentication=ActiveDirectoryMSI, which QueueBox does not support/);
    expect(
      options('jdbc:sqlserver://sql1;databaseName=q;authentication=SqlPassword'),
    ).toMatchObject({ database: 'q' });
  });

  it('keeps the password out of every text a printed config shows', () => {
    const config = connectionConfig(fromUrl('jdbc:sqlserver://sql1;databaseName=q'));
    expect(JSON.stringify(config.options)).not.toContain('s3cret!');
  });
});

describe('urlNamesPort', () => {
  it.each([
    ['jdbc:sqlserver://sql1;databaseName=q', false],
    ['jdbc:sqlserver://sql1\\INST;databaseName=q', false],
    ['jdbc:sqlserver://sql1:1500;databaseName=q', true],
    ['jdbc:sqlserver://sql1\\INST:1500', true],
    ['jdbc:sqlserver://[::1];port=1500', true],
    ['jdbc:sqlserver://[::1];databaseName=q', false],
  ])('%s → %s', (url, named) => {
    expect(urlNamesPort(url)).toBe(named);
  });
});
