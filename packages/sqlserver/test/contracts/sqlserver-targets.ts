/**
 * The SQL Server adapter as the contracts of @queuebox/testing see it: each run gets a fresh
 * database with one table layout, the adapter through the package entry, and the probes.
 */
import type { OutboxStore } from '@queuebox/core';
import { createSqlServerOutboxStore, tableNamesFrom } from '@queuebox/sqlserver';
import type { ServiceLookup } from '@queuebox/testing';
import type { ContractTarget, OutboxProbe, StoreHarness } from '@queuebox/testing/contracts';
import { createLayout, type Layout } from './layouts.js';
import { sqlServerOutboxProbe } from './outbox-probe.js';
import { createFreshSqlServer } from './sqlserver-database.js';

const skipOf = (ss: ServiceLookup) => !ss.available && ss.reason;

export function outboxTarget(
  ss: ServiceLookup,
  layout: Layout,
): ContractTarget<StoreHarness<OutboxStore, OutboxProbe>> {
  return {
    label: `SQL Server, ${layout}`,
    skip: skipOf(ss),
    async open() {
      if (!ss.available) throw new Error(`SQL Server is not available: ${ss.reason}`);
      const db = await createFreshSqlServer(ss.url);
      try {
        const config = await createLayout(db.pool, db.config, layout);
        const tables = tableNamesFrom(config);
        const build = (
          pool: typeof db.pool,
          clock: Parameters<StoreHarness<OutboxStore, OutboxProbe>['store']>[0],
        ) => createSqlServerOutboxStore(pool, tables, config.outboxTableName, clock);
        return {
          store: (clock) => build(db.pool, clock),
          replica: (clock) => {
            // Another replica: a small pool of its own, so replicas really contend.
            const pool = db.newPool(2);
            return Promise.resolve({ store: build(pool, clock), close: () => pool.close() });
          },
          probe: sqlServerOutboxProbe(db.pool, tables),
          drop: () => db.drop(),
        };
      } catch (error: unknown) {
        await db.drop();
        throw error;
      }
    },
  };
}
