/**
 * The SQL Server adapter as the contracts of @queuebox/testing see it: each run gets a fresh
 * database with one table layout, the adapter through the package entry, and the probes.
 */
import type { Clock, InboxStore, OutboxStore } from '@queuebox/core';
import {
  createSqlServerInboxStore,
  createSqlServerOutboxStore,
  tableNamesFrom,
  type SqlServerPool,
} from '@queuebox/sqlserver';
import type { ServiceLookup } from '@queuebox/testing';
import type {
  ContractTarget,
  InboxProbe,
  OutboxProbe,
  PullHarness,
  StoreHarness,
} from '@queuebox/testing/contracts';
import { sqlServerInboxProbe } from './inbox-probe.js';
import type { Layout } from '@queuebox/testing/contracts';
import { createLayout } from './layouts.js';
import { sqlServerOutboxProbe } from './outbox-probe.js';
import { sqlServerPullStatements } from './pull-statements.js';
import { createFreshSqlServer, type FreshSqlServer } from './sqlserver-database.js';

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

type InboxHarnessOf = StoreHarness<InboxStore, InboxProbe>;

/** A fresh database with one layout, the inbox store on it, and the inbox probe. */
async function openInbox(
  ss: ServiceLookup,
  layout: Layout,
): Promise<InboxHarnessOf & { readonly db: FreshSqlServer }> {
  if (!ss.available) throw new Error(`SQL Server is not available: ${ss.reason}`);
  const db = await createFreshSqlServer(ss.url);
  try {
    const config = await createLayout(db.pool, db.config, layout);
    const tables = tableNamesFrom(config);
    const build = (pool: SqlServerPool, clock: Clock) =>
      createSqlServerInboxStore(pool, tables, config.inboxTableName, clock, {
        connectionTimeoutMs: config.connectionTimeoutMs,
      });
    return {
      db,
      store: (clock) => build(db.pool, clock),
      replica: (clock) => {
        const pool = db.newPool(3);
        return Promise.resolve({ store: build(pool, clock), close: () => pool.close() });
      },
      probe: sqlServerInboxProbe(db.pool, tables, sqlServerOutboxProbe(db.pool, tables)),
      drop: () => db.drop(),
    };
  } catch (error: unknown) {
    await db.drop();
    throw error;
  }
}

export function inboxTarget(ss: ServiceLookup, layout: Layout): ContractTarget<InboxHarnessOf> {
  return {
    label: `SQL Server, ${layout}`,
    skip: skipOf(ss),
    open: () => openInbox(ss, layout),
  };
}

/** The shipped pull SQL names the default tables, so it runs on those only. */
export function pullTarget(ss: ServiceLookup): ContractTarget<PullHarness> {
  return {
    label: 'SQL Server, examples/pull/sql/sqlserver, default tables',
    skip: skipOf(ss),
    async open() {
      const harness = await openInbox(ss, 'default tables');
      return {
        ...harness,
        pull: sqlServerPullStatements(harness.db.pool),
        pullWorker: () => {
          // Another worker process: a pool of its own, as large as the workers that share it.
          const pool = harness.db.newPool(6);
          return Promise.resolve({
            store: sqlServerPullStatements(pool),
            close: () => pool.close(),
          });
        },
      };
    },
  };
}
