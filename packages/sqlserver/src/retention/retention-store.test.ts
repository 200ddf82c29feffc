import { describe, expect, it } from 'vitest';
import { connectionConfig } from '../connection/connection-options.js';
import { createPool } from '../connection/pool.js';
import { tableNamesFrom } from '../schema/table-names.js';
import { databaseConfig } from '../../test/support.js';
import { createSqlServerRetentionStore } from './retention-store.js';

/**
 * The refusals come before any I/O, so they run here without a SQL Server: the pool points at a
 * closed port and is never asked for a connection. Deleting itself needs a server (see README).
 */
describe('SQL Server retention store refusals', () => {
  const config = databaseConfig({ port: 1 });
  const retention = createSqlServerRetentionStore(
    createPool(connectionConfig(config), 1, 100),
    tableNamesFrom(config),
  );
  const cutoff = new Date('2024-01-01T00:00:00.000Z');

  it('never deletes pending or processing rows, even through a cast', async () => {
    for (const state of ['pending', 'processing']) {
      await expect(
        retention.deleteOlderThan('outbox', state as 'sent', cutoff, 10),
      ).rejects.toThrow(`Retention refuses to delete outbox rows in state '${state}'`);
      await expect(
        retention.deleteOlderThan('inbox', state as 'processed', cutoff, 10),
      ).rejects.toThrow(`Retention refuses to delete inbox rows in state '${state}'`);
    }
    await expect(retention.deleteBeyondCount('outbox', 'pending' as 'sent', 5, 10)).rejects.toThrow(
      'it deletes only sent and dead rows',
    );
  });

  it('has no COUNT policy for the inbox and refuses nonsense sizes', async () => {
    await expect(retention.deleteBeyondCount('inbox' as 'outbox', 'dead', 5, 10)).rejects.toThrow(
      'The inbox has no COUNT retention policy.',
    );
    await expect(retention.deleteOlderThan('outbox', 'sent', cutoff, 0)).rejects.toThrow(
      'positive whole batchSize',
    );
    await expect(retention.deleteBeyondCount('outbox', 'dead', -1, 10)).rejects.toThrow(
      'keep a whole number of rows',
    );
  });
});
