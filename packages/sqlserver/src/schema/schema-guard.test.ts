import { describe, expect, it } from 'vitest';
import { GUARD_MAPPING } from '@queuebox/testing';
import { databaseConfig } from '../../test/support.js';
import { columnLookup, requirementsOf } from './schema-guard.js';

describe('requirementsOf (SQL Server)', () => {
  it('gives the exact DDL for the default tables', () => {
    const [inbox, outbox] = requirementsOf(databaseConfig());
    expect(inbox?.fix).toBe(
      `ALTER TABLE [inbox] ADD [headers] NVARCHAR(MAX) NOT NULL DEFAULT '{}';`,
    );
    expect(outbox?.fix).toBe(
      `ALTER TABLE [outbox] ADD [sequence] BIGINT IDENTITY(1,1) NOT NULL; ` +
        `CREATE INDEX [idx_outbox_key_sequence] ON [outbox] ([key], [sequence]) WHERE [state] IN ('pending','processing');`,
    );
  });

  it('uses the mapped names', () => {
    const [inbox, outbox] = requirementsOf(databaseConfig(GUARD_MAPPING));
    expect(inbox?.fix).toBe(
      `ALTER TABLE [AppInbox] ADD [hdrs] NVARCHAR(MAX) NOT NULL DEFAULT '{}';`,
    );
    expect(outbox?.fix).toContain(
      `ALTER TABLE [app_outbox] ADD [seq] BIGINT IDENTITY(1,1) NOT NULL;`,
    );
    expect(outbox?.fix).toContain(
      `CREATE INDEX [idx_app_outbox_key_sequence] ON [app_outbox] ([stream], [seq]) WHERE [status] IN ('pending','processing');`,
    );
  });

  it('refuses a name that would end a bracketed identifier', () => {
    expect(() => requirementsOf(databaseConfig({ inboxTableName: 'in]box' }))).toThrow(
      "'database.inboxTableName' must be an SQL identifier",
    );
  });

  it('looks the table up as written, lower- and upper-cased, bound as values', () => {
    expect(columnLookup('AppInbox').params.map((p) => p.value)).toEqual([
      'AppInbox',
      'appinbox',
      'APPINBOX',
    ]);
  });
});
