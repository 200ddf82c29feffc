import type { DatabaseConfig } from '@queuebox/core';
import { captureSql } from '../../src/capture/capture-sql.js';
import { migrations } from '../../src/migrations/index.js';
import * as history from '../../src/migrator/history-sql.js';
import { outboxStatements } from '../../src/outbox/outbox-statements.js';
import { consoleEntries } from './console-catalogue.js';
import { inboxEntries } from './inbox-catalogue.js';
import { retentionEntries } from './retention-catalogue.js';
import { pullEntries } from './pull-catalogue.js';
import { columnLookup, requirementsOf } from '../../src/schema/schema-guard.js';
import { tableNamesFrom } from '../../src/schema/table-names.js';
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
    ...captureEntries(),
    ...pullEntries(),
  ];
  for (const [layout, config] of Object.entries(LAYOUTS)) {
    entries.push(...outboxEntries(layout, config));
    entries.push(...inboxEntries(layout, config));
    entries.push(...retentionEntries(layout, config));
    entries.push(...consoleEntries(layout, config));
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

const NOW = new Date('2024-03-01T12:00:00.000Z');
const ID = (n: number) => `00000000-0000-4000-8000-00000000000${n}`;

/** Every outbox statement, with one row and with three (statements over several rows). */
function outboxEntries(layout: string, config: DatabaseConfig): Entry[] {
  const s = outboxStatements(tableNamesFrom(config), config.outboxTableName);
  const fences = [1, 2, 3].map((n) => ({ id: ID(n), claimToken: ID(n + 3) }));
  const entries: [string, Statement][] = [
    ['claim', s.claim(10, 30_000, NOW)],
    ['re-read by id', s.reread([ID(1), ID(2), ID(3)])],
    [
      'complete',
      s.complete(
        [
          { kind: 'sent', fence: fences[0]! },
          { kind: 'retry', fence: fences[1]!, delayMs: 2000, error: 'boom' },
          { kind: 'dead', fence: fences[2]!, error: 'gone' },
        ],
        NOW,
      ),
    ],
    ['complete one', s.complete([{ kind: 'sent', fence: fences[0]! }], NOW)],
    ['renew', s.renew(fences, 30_000)],
    ['release', s.release(fences, NOW)],
    ['reclaim', s.reclaim(NOW)],
    ['gauges', s.gauges(NOW)],
    ['next wake', s.nextWake(NOW)],
    [
      'insert',
      s.insert([
        { topic: 'a', payload: { n: 1 } },
        {
          id: ID(9),
          topic: 'b',
          key: 'k',
          aggregateType: 'order',
          payload: [1],
          headers: { h: 'v' },
          maxAttempts: 3,
          scheduledAt: NOW,
        },
      ]),
    ],
    ['replay by ids', s.replay({ ids: [ID(1), ID(2)] }, NOW)],
    [
      'replay by topics and time',
      s.replay({ topics: ['a'], createdAfter: NOW, createdBefore: NOW }, NOW),
    ],
    ['distinct topics', s.distinctTopics()],
  ];
  return entries.map(([name, statement]) => ({ name: `outbox (${layout}): ${name}`, statement }));
}

/** The statements of `sqlserver-cdc` capture (the change table as the server names it). */
function captureEntries(): Entry[] {
  const entries: [string, Statement][] = [
    ['session id', captureSql.sessionId],
    ['try lock', captureSql.tryLock('queuebox')],
    ['lock holder', captureSql.lockHolder('queuebox')],
    ['alive', captureSql.alive('queuebox')],
    ['end stale session', captureSql.endSession(57, '2024-03-01T12:00:00.000')],
    ['unlock', captureSql.unlock('queuebox')],
    ['registration', captureSql.registration('queuebox')],
    ['register', captureSql.register('queuebox', ID(1), 'ab'.repeat(32))],
    ['preflight: database enabled', captureSql.databaseEnabled],
    ['preflight: capture instances', captureSql.captureInstances('dbo', 'outbox')],
    ['max lsn', captureSql.maxLsn],
    ['poll', captureSql.poll('[cdc].[dbo_outbox_CT]', 'dbo_outbox', '0x0000002A000001F00003')],
  ];
  return entries.map(([name, statement]) => ({ name: `capture: ${name}`, statement }));
}
