/** The inbox probe of the contracts on PostgreSQL: raw SQL on the mapped names, DB clock. */
import type { InboxState } from '@queuebox/core';
import type { TableNames } from '@queuebox/postgres';
import type { InboxProbe, InboxRow } from '@queuebox/testing/contracts';
import type postgres from 'postgres';
import { dbNow, readOutboxRows } from './outbox-probe.js';
import { holdLock } from './row-locks.js';

/** Every inbox column under the port's field name, in (scheduled_at, created_at, id) order. */
export function selectInboxRows(tables: TableNames): string {
  const c = tables.inboxColumns;
  return `SELECT ${c.id}::text AS "id", ${c.source} AS "source", ${c.idempotencyKey} AS "idempotencyKey",
            ${c.aggregateId} AS "aggregateId", ${c.eventType} AS "eventType", ${c.payload} AS "payload",
            ${c.headers} AS "headers", ${c.correlationId} AS "correlationId",
            ${c.consumption} AS "consumption", ${c.state} AS "state", ${c.createdAt} AS "createdAt",
            ${c.processedAt} AS "processedAt", ${c.scheduledAt} AS "scheduledAt",
            ${c.attempt} AS "attempt", ${c.lastError} AS "lastError", ${c.claimedAt} AS "claimedAt",
            ${c.claimToken}::text AS "claimToken", ${c.leaseExpiresAt} AS "leaseExpiresAt"
     FROM ${tables.inbox} AS i ORDER BY i.${c.scheduledAt}, i.${c.createdAt}, i.${c.id}`;
}

export function postgresInboxProbe(sql: postgres.Sql, tables: TableNames): InboxProbe {
  const t = tables.inbox;
  const c = tables.inboxColumns;
  const update = async (set: string, id: string, parameters: (string | number)[] = []) => {
    await sql.unsafe(`UPDATE ${t} SET ${set} WHERE ${c.id} = $1`, [id, ...parameters]);
  };
  return {
    async clear() {
      await sql.unsafe(`DELETE FROM ${t}`);
      await sql.unsafe(`DELETE FROM ${tables.outbox}`);
    },
    inboxRows: () => sql.unsafe<InboxRow[]>(selectInboxRows(tables)),
    outboxRows: () => readOutboxRows(sql, tables),
    setInboxProcessing: (id, leaseMs) =>
      update(
        `${c.state} = 'processing', ${c.claimedAt} = clock_timestamp(), ${c.leaseExpiresAt} = ${
          leaseMs === null ? 'NULL' : `clock_timestamp() + $2::int * interval '1 millisecond'`
        }`,
        id,
        leaseMs === null ? [] : [leaseMs],
      ),
    setInboxState: (id, state: InboxState) => update(`${c.state} = $2`, id, [state]),
    expireInboxLease: (id) =>
      update(`${c.leaseExpiresAt} = clock_timestamp() - interval '1 second'`, id),
    dbNow: () => dbNow(sql),
    withInboxRowLocked: (id, during) =>
      holdLock(sql, `SELECT 1 FROM ${t} WHERE ${c.id} = $1 FOR UPDATE`, id, during),
  };
}
