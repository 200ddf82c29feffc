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
import { createFreshDatabase, type ServiceLookup } from '@queuebox/testing';
import type {
  ContractTarget,
  InboxProbe,
  OutboxProbe,
  Replica,
  StoreHarness,
} from '@queuebox/testing/contracts';
import postgres from 'postgres';
import { postgresInboxProbe } from './inbox-probe.js';
import { createLayout, type Layout } from './layouts.js';
import { postgresOutboxProbe } from './outbox-probe.js';

/** A second replica: a pool of its own, small so that replicas really contend. */
function replicaOf<Store>(
  url: string,
  build: (sql: postgres.Sql) => Store,
  max: number,
): Replica<Store> {
  const sql = postgres(url, { max, onnotice: () => undefined });
  return { store: build(sql), close: () => sql.end({ timeout: 5 }) };
}

function target<Store, Probe>(
  pg: ServiceLookup,
  label: string,
  layout: Layout,
  build: (sql: postgres.Sql, tables: TableNames, clock: Clock) => Store,
  probe: (sql: postgres.Sql, tables: TableNames) => Probe,
  replicaPool: number,
): ContractTarget<StoreHarness<Store, Probe>> {
  return {
    label: `PostgreSQL, ${label}, ${layout}`,
    skip: !pg.available && pg.reason,
    async open() {
      if (!pg.available) throw new Error('PostgreSQL is not available');
      const db = await createFreshDatabase(pg.url);
      const tables = await createLayout(db.sql, layout);
      return {
        store: (clock) => build(db.sql, tables, clock),
        replica: (clock) =>
          Promise.resolve(replicaOf(db.url, (sql) => build(sql, tables, clock), replicaPool)),
        probe: probe(db.sql, tables),
        drop: () => db.drop(),
      };
    },
  };
}

export function outboxTarget(
  pg: ServiceLookup,
  layout: Layout,
): ContractTarget<StoreHarness<OutboxStore, OutboxProbe>> {
  return target(pg, 'outbox store', layout, createPostgresOutboxStore, postgresOutboxProbe, 2);
}

export function inboxTarget(
  pg: ServiceLookup,
  label: string,
  layout: Layout,
): ContractTarget<StoreHarness<InboxStore, InboxProbe>> {
  return target(pg, label, layout, createPostgresInboxStore, postgresInboxProbe, 3);
}
