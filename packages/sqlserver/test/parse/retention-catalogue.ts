import type { DatabaseConfig } from '@queuebox/core';
import { deleteBeyondCount, deleteOlderThan } from '../../src/retention/retention-statements.js';
import { tableNamesFrom } from '../../src/schema/table-names.js';
import type { Entry } from './catalogue.js';

const CUTOFF = new Date('2024-03-01T12:00:00.000Z');

/** The retention deletes of both tables. */
export function retentionEntries(layout: string, config: DatabaseConfig): Entry[] {
  const tables = tableNamesFrom(config);
  return [
    { name: 'outbox age', statement: deleteOlderThan(tables, 'outbox', 'sent', CUTOFF, 1000) },
    { name: 'inbox age', statement: deleteOlderThan(tables, 'inbox', 'processed', CUTOFF, 1000) },
    { name: 'outbox count', statement: deleteBeyondCount(tables, 'dead', 100_000, 1000) },
  ].map((entry) => ({ ...entry, name: `retention (${layout}): ${entry.name}` }));
}
