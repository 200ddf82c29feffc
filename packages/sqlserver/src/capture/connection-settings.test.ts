import { describe, expect, it } from 'vitest';
import { captureConfigWith } from '../../test/capture-support.js';
import { CAPTURE_CONNECTION_OVERRIDE, withHosts } from '@queuebox/testing';
import { databaseConfig } from '../../test/support.js';
import {
  CAPTURE_NEEDS_HOST_AND_DATABASE,
  CAPTURE_NEEDS_SINGLE_HOST,
  captureConnectionConfig,
  captureConnectionSettings,
  captureFingerprintLines,
} from './connection-settings.js';

describe('sqlserver-cdc connection settings (spec §10, §10.1)', () => {
  it('come from database.url and the database login unless capture.connection overrides them', () => {
    const database = databaseConfig({ host: 'db', port: 1500, database: 'app', password: 'pw' });
    expect(captureConnectionSettings(captureConfigWith(database))).toEqual({
      host: 'db',
      port: 1500,
      database: 'app',
      username: 'sa',
    });
    const config = captureConfigWith(database, {
      connection: {
        ...CAPTURE_CONNECTION_OVERRIDE,
        encrypt: false,
        trustServerCertificate: true,
      },
    });
    expect(captureConnectionSettings(config)).toEqual({
      host: 'primary',
      port: 1433,
      database: 'other',
      username: 'capture',
    });
    const tedious = captureConnectionConfig(config);
    expect(tedious.server).toBe('primary');
    expect(tedious.authentication?.options).toEqual({ userName: 'capture', password: 'cap' });
    expect(tedious.options).toMatchObject({
      port: 1433,
      database: 'other',
      encrypt: false,
      trustServerCertificate: true,
      useUTC: true,
    });
  });

  it("take encrypt and trustServerCertificate from capture.connection (true, false), not the URL's", () => {
    const database = databaseConfig({
      params: { encrypt: 'false', trustServerCertificate: 'true' },
    });
    expect(captureConnectionConfig(captureConfigWith(database)).options).toMatchObject({
      encrypt: true,
      trustServerCertificate: false,
    });
  });

  it("keep the URL's instance name unless capture names its own port", () => {
    const database = databaseConfig({
      url: 'jdbc:sqlserver://db\\SQLEXPRESS;databaseName=app',
      host: 'db',
      params: { instanceName: 'SQLEXPRESS' },
    });
    const named = captureConnectionConfig(captureConfigWith(database)).options;
    expect(named?.instanceName).toBe('SQLEXPRESS');
    expect(named?.port).toBeUndefined();
    const ported = captureConnectionConfig(
      captureConfigWith(database, { connection: { port: 1600 } }),
    ).options;
    expect(ported?.instanceName).toBeUndefined();
    expect(ported?.port).toBe(1600);
  });

  it('refuse several hosts and a blank host or database with the reference texts', () => {
    const one = databaseConfig();
    const twoHosts = withHosts(one, 'a', 'b');
    expect(() => captureConnectionSettings(captureConfigWith(twoHosts))).toThrow(
      CAPTURE_NEEDS_SINGLE_HOST,
    );
    expect(
      captureConnectionSettings(captureConfigWith(twoHosts, { connection: { hostname: 'b' } }))
        .host,
    ).toBe('b');
    expect(() =>
      captureConnectionSettings(captureConfigWith(one, { connection: { database: ' ' } })),
    ).toThrow(CAPTURE_NEEDS_HOST_AND_DATABASE);
  });

  it("fingerprint the settings the way the reference's SQL Server connector named them", () => {
    const config = captureConfigWith(databaseConfig({ host: 'db', database: 'app' }), {
      schema: 'sales',
    });
    expect(captureFingerprintLines(config)).toEqual([
      'connector.class=io.debezium.connector.sqlserver.SqlServerConnector',
      'database.hostname=db',
      'database.port=1433',
      'database.dbname=',
      'database.names=app',
      'table.include.list=\\Qsales.outbox\\E',
      'slot.name=',
      'publication.name=',
    ]);
    // No secret enters it.
    expect(captureFingerprintLines(config).join('\n')).not.toContain('QueueBox_Test_1');
  });
});
