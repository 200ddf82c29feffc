import { DEFAULT_INBOX_COLUMNS, DEFAULT_OUTBOX_COLUMNS, Secret } from '@queuebox/core';
import { describe, expect, it } from 'vitest';
import { sqlServerLogin, sqlServerMigrationConfig } from './sqlserver-login.js';

describe('the SQL Server test login', () => {
  it('reads user, password, host and port of a sqlserver:// URL, 1433 unless given', () => {
    expect(sqlServerLogin('sqlserver://sa:Pa%3Bss@db.local:14330;databaseName=master')).toEqual({
      user: 'sa',
      password: 'Pa;ss',
      host: 'db.local',
      port: 14330,
    });
    expect(sqlServerLogin('sqlserver://sa:x@db.local;databaseName=master').port).toBe(1433);
    expect(() => sqlServerLogin('postgres://sa:x@db.local')).toThrow('not a sqlserver:// test URL');
  });

  it('gives the migrator one connection to the named database, certificate not checked', () => {
    const login = sqlServerLogin('sqlserver://sa:secret@127.0.0.1:1433;databaseName=master');
    const config = sqlServerMigrationConfig(login, 'qb_fresh');
    expect({ ...config, password: config.password.reveal() }).toEqual({
      type: 'sqlserver',
      url: 'jdbc:sqlserver://127.0.0.1:1433;databaseName=qb_fresh',
      connection: {
        hosts: [{ host: '127.0.0.1', port: 1433 }],
        database: 'qb_fresh',
        params: { encrypt: 'false', trustServerCertificate: 'true' },
      },
      username: 'sa',
      password: 'secret',
      poolSize: 1,
      connectionTimeoutMs: 30_000,
      startupTimeoutMs: 60_000,
      migrate: true,
      outboxTableName: 'outbox',
      inboxTableName: 'inbox',
      columnMapping: { outbox: DEFAULT_OUTBOX_COLUMNS, inbox: DEFAULT_INBOX_COLUMNS },
    });
    expect(config.password).toBeInstanceOf(Secret);
  });
});
