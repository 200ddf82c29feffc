import type { ConsoleFilter, DatabaseConfig } from '@queuebox/core';
import { consoleStatements } from '../../src/console/console-statements.js';
import { tableNamesFrom } from '../../src/schema/table-names.js';
import type { Entry } from './catalogue.js';

const NOW = new Date('2024-03-01T12:00:00.000Z');
const ID = '00000000-0000-4000-8000-000000000001';
const NONE: ConsoleFilter = {
  ids: null,
  states: null,
  groups: null,
  from: null,
  to: null,
  q: null,
};
const FULL: ConsoleFilter = {
  ids: [ID, '00000000-0000-4000-8000-000000000002'],
  states: ['dead', 'sent'],
  groups: ['order.created', 'order.paid'],
  from: NOW,
  to: NOW,
  q: '50%_off',
};

/** Every console statement, with no filter and with every filter, on both tables. */
export function consoleEntries(layout: string, config: DatabaseConfig): Entry[] {
  const s = consoleStatements(tableNamesFrom(config));
  const after = { createdAt: '2024-03-01T12:00:00.1234567', id: ID };
  return (['outbox', 'inbox'] as const).flatMap((table) =>
    (
      [
        ['list, no filter', s.list(table, NONE, 51, null)],
        ['list, every filter, after a position', s.list(table, FULL, 51, after)],
        ['read', s.read(table, ID)],
        ['count by state', s.countByState(table)],
        ['dead groups', s.deadGroups(table, 200)],
        ['discard', s.discardDead(table, { ...FULL, states: null }, 1000)],
        ...(table === 'inbox'
          ? ([['requeue', s.requeueInbox({ ...NONE, groups: ['hooks'] }, 1000, NOW)]] as const)
          : []),
      ] as const
    ).map(([name, statement]) => ({ name: `console (${layout}) ${table}: ${name}`, statement })),
  );
}
