import { describe, expect, it } from 'vitest';
import { captureConfigWith } from '../../test/capture-support.js';
import { CAPTURE_CONNECTION_OVERRIDE, withHosts } from '@queuebox/testing';
import { databaseConfig } from '../../test/support.js';
import {
  CAPTURE_NEEDS_HOST_AND_DATABASE,
  CAPTURE_NEEDS_SINGLE_HOST,
  captureConnectionSettings,
  captureFingerprintLines,
} from './connection-settings.js';

describe('capture connection settings (spec §10.1)', () => {
  it('comes from database.url and the database credentials unless capture.connection overrides them', () => {
    const database = databaseConfig({ host: 'db', port: 6543, database: 'app', password: 'pw' });
    expect(captureConnectionSettings(captureConfigWith(database))).toMatchObject({
      host: 'db',
      port: 6543,
      database: 'app',
      username: 'postgres',
    });
    const overridden = captureConnectionSettings(
      captureConfigWith(database, { connection: CAPTURE_CONNECTION_OVERRIDE }),
    );
    expect(overridden).toMatchObject({ host: 'primary', port: 5432, database: 'other' });
    expect(overridden.username).toBe('capture');
    expect(overridden.password.reveal()).toBe('cap');
  });

  it('refuses several hosts and a blank host or database with the reference texts', () => {
    const multi = databaseConfig();
    const twoHosts = withHosts(multi, 'a', 'b');
    expect(() => captureConnectionSettings(captureConfigWith(twoHosts))).toThrow(
      CAPTURE_NEEDS_SINGLE_HOST,
    );
    expect(() =>
      captureConnectionSettings(
        captureConfigWith(multi, { connection: { hostname: 'a,b', port: null } }),
      ),
    ).toThrow(CAPTURE_NEEDS_SINGLE_HOST);
    expect(() =>
      captureConnectionSettings(captureConfigWith(multi, { connection: { hostname: ' ' } })),
    ).toThrow(CAPTURE_NEEDS_HOST_AND_DATABASE);
    expect(() =>
      captureConnectionSettings(captureConfigWith(multi, { connection: { database: '' } })),
    ).toThrow(CAPTURE_NEEDS_HOST_AND_DATABASE);
    expect(CAPTURE_NEEDS_SINGLE_HOST).toBe(
      'Set a single capture.connection.hostname for multi-host URLs',
    );
    expect(CAPTURE_NEEDS_HOST_AND_DATABASE).toBe(
      'Capture requires hostname and database connection settings',
    );
  });

  it("lists the fingerprint keys in the reference's order, without secrets", () => {
    const config = captureConfigWith(
      databaseConfig({ host: 'db', database: 'app', password: 'pw' }),
      {
        schema: 'app',
        slot: 's1',
        publication: 'p1',
      },
    );
    const lines = captureFingerprintLines(config, captureConnectionSettings(config));
    expect(lines).toEqual([
      'connector.class=io.debezium.connector.postgresql.PostgresConnector',
      'database.hostname=db',
      'database.port=5432',
      'database.dbname=app',
      'database.names=',
      'table.include.list=\\Qapp.outbox\\E',
      'slot.name=s1',
      'publication.name=p1',
    ]);
    expect(lines.join('\n')).not.toContain('pw');
  });
});
