import type { DatabaseConfig } from '@queuebox/core';
import { migrations } from '../../src/migrations/index.js';
import * as history from '../../src/migrator/history-sql.js';
import { columnLookup, requirementsOf } from '../../src/schema/schema-guard.js';
import { statement, type Statement } from '../../src/sql/statement.js';
import { databaseConfig } from '../support.js';

export interface Entry {
  readonly name: string;
  readonly statement: Statement;
}

/** The default schema, and one where every table and column is renamed. */
export const LAYOUTS: Record<string, DatabaseConfig> = {
  default: databaseConfig(),
  renamed: databaseConfig({
    outboxTableName: 'app_outbox',
    inboxTableName: 'AppInbox',
    outboxColumns: { key: 'stream', sequence: 'seq', state: 'status', payload: 'body' },
    inboxColumns: { headers: 'hdrs', aggregateId: 'entity_id', state: 'status' },
  }),
};

/**
 * Every statement this package can send, by name. A new statement builder joins here, so the
 * parse test reads it; statements that depend on the table layout are listed for each layout.
 */
export function catalogue(): Entry[] {
  const entries: Entry[] = [
    ...migrations.map((m) => ({ name: `migration ${m.script}`, statement: statement(m.sql) })),
    { name: 'history: create table', statement: history.createHistoryTable },
    { name: 'history: exists', statement: history.historyTableExists },
    { name: 'history: read', statement: history.readHistory },
    {
      name: 'history: insert row',
      statement: history.insertHistoryRow({
        version: '1',
        description: 'create outbox',
        type: 'SQL',
        script: 'V1__create_outbox.sql',
        checksum: 1,
        executionTimeMs: 3,
      }),
    },
    { name: 'migration lock: acquire', statement: history.acquireMigrationLock },
    { name: 'migration lock: release', statement: history.releaseMigrationLock },
    { name: 'migration guard: existing tables', statement: history.existingQueueBoxTables },
    { name: 'migration guard: schema has objects', statement: history.schemaHasObjects },
    { name: 'default schema', statement: history.defaultSchema },
    { name: 'ping', statement: statement('SELECT 1') },
  ];
  for (const [layout, config] of Object.entries(LAYOUTS)) {
    for (const requirement of requirementsOf(config)) {
      entries.push({
        name: `schema guard (${layout}): column lookup of ${requirement.table}`,
        statement: columnLookup(requirement.table),
      });
      // The DDL the guard's message tells an operator to run is T-SQL too.
      entries.push({
        name: `schema guard (${layout}): fix for ${requirement.table}.${requirement.column}`,
        statement: statement(requirement.fix),
      });
    }
  }
  return entries;
}
