/**
 * The PostgreSQL adapter as the contracts of @queuebox/testing see it: each run gets a fresh
 * database with one table layout, the adapter through the package entry, and the probes.
 */
import type { Clock, InboxStore, OutboxStore } from '@queuebox/core';
import {
  createPostgresInboxStore,
  createPostgresOutboxStore,
  type TableNames,
} from '@queuebox/postgres';
import { createFreshDatabase, type FreshDatabase, type ServiceLookup } from '@queuebox/testing';
import type {
  ContractTarget,
  InboxProbe,
  OutboxProbe,
  PullHarness,
  Replica,
  StoreHarness,
} from '@queuebox/testing/contracts';
import postgres from 'postgres';
import { postgresInboxProbe } from './inbox-probe.js';
import type { Layout } from '@queuebox/testing/contracts';
import { createLayout } from './layouts.js';
import { postgresOutboxProbe } from './outbox-probe.js';
import { postgresPullStatements } from './pull-statements.js';

type Build<Store> = (sql: postgres.Sql, tables: TableNames, clock: Clock) => Store;

/** Another replica or worker: a pool of its own, small so that replicas really contend. */
function ownPool<T>(url: string, max: number, build: (sql: postgres.Sql) => T): Replica<T> {
  const sql = postgres(url, { max, onnotice: () => undefined });
  return { store: build(sql), close: () => sql.end({ timeout: 5 }) };
}

async function openDatabase(
  pg: ServiceLookup,
  layout: Layout,
): Promise<{ db: FreshDatabase; tables: TableNames }> {
  if (!pg.available) throw new Error(`PostgreSQL is not available: ${pg.reason}`);
  const db = await createFreshDatabase(pg.url);
  try {
    return { db, tables: await createLayout(db.sql, layout) };
  } catch (error: unknown) {
    await db.drop();
    throw error;
  }
}

function harnessOf<Store, Probe>(
  db: FreshDatabase,
  tables: TableNames,
  build: Build<Store>,
  probe: (sql: postgres.Sql, tables: TableNames) => Probe,
  replicaPool: number,
): StoreHarness<Store, Probe> {
  return {
    store: (clock) => build(db.sql, tables, clock),
    replica: (clock) =>
      Promise.resolve(ownPool(db.url, replicaPool, (sql) => build(sql, tables, clock))),
    probe: probe(db.sql, tables),
    drop: () => db.drop(),
  };
}

const skipOf = (pg: ServiceLookup) => !pg.available && pg.reason;

export function outboxTarget(
  pg: ServiceLookup,
  layout: Layout,
): ContractTarget<StoreHarness<OutboxStore, OutboxProbe>> {
  return {
    label: `PostgreSQL, ${layout}`,
    skip: skipOf(pg),
    async open() {
      const { db, tables } = await openDatabase(pg, layout);
      return harnessOf(db, tables, createPostgresOutboxStore, postgresOutboxProbe, 2);
    },
  };
}

export function inboxTarget(
  pg: ServiceLookup,
  layout: Layout,
): ContractTarget<StoreHarness<InboxStore, InboxProbe>> {
  return {
    label: `PostgreSQL, ${layout}`,
    skip: skipOf(pg),
    async open() {
      const { db, tables } = await openDatabase(pg, layout);
      return harnessOf(db, tables, createPostgresInboxStore, postgresInboxProbe, 3);
    },
  };
}

/** The shipped pull SQL names the default tables, so it runs on those only. */
export function pullTarget(pg: ServiceLookup): ContractTarget<PullHarness> {
  return {
    label: 'PostgreSQL, examples/pull/sql/postgresql, default tables',
    skip: skipOf(pg),
    async open() {
      const { db, tables } = await openDatabase(pg, 'default tables');
      return {
        ...harnessOf(db, tables, createPostgresInboxStore, postgresInboxProbe, 3),
        pull: postgresPullStatements(db.sql),
        pullWorker: () => Promise.resolve(ownPool(db.url, 6, postgresPullStatements)),
      };
    },
  };
}
