/** The outbox probe of the contracts on PostgreSQL: raw SQL on the mapped names, DB clock. */
import type { OutboxState } from '@queuebox/core';
import type { TableNames } from '@queuebox/postgres';
import type { OutboxProbe, OutboxRow } from '@queuebox/testing/contracts';
import type postgres from 'postgres';
import { holdLock, withUncommitted } from './row-locks.js';

type RawRow = Omit<OutboxRow, 'sequence'> & { readonly sequence: string };

/**
 * Every outbox column under the port's field name, in sequence order. The ORDER BY names the
 * table's column: bare, `"sequence"` would be the text alias of the default layout.
 */
export function selectOutboxRows(tables: TableNames): string {
  const c = tables.outboxColumns;
  return `SELECT ${c.id}::text AS "id", ${c.topic} AS "topic", ${c.key} AS "key", ${c.state} AS "state",
            ${c.attempt} AS "attempt", ${c.maxAttempts} AS "maxAttempts", ${c.headers} AS "headers",
            ${c.payload} AS "payload", ${c.aggregateType} AS "aggregateType",
            ${c.scheduledAt} AS "scheduledAt", ${c.createdAt} AS "createdAt", ${c.updatedAt} AS "updatedAt",
            ${c.claimedAt} AS "claimedAt", ${c.claimToken}::text AS "claimToken",
            ${c.leaseExpiresAt} AS "leaseExpiresAt", ${c.lastError} AS "lastError", ${c.sequence}::text AS "sequence"
     FROM ${tables.outbox} AS o ORDER BY o.${c.sequence}`;
}

export async function readOutboxRows(sql: postgres.Sql, tables: TableNames): Promise<OutboxRow[]> {
  const rows = await sql.unsafe<RawRow[]>(selectOutboxRows(tables));
  return rows.map((row) => ({ ...row, sequence: BigInt(row.sequence) }));
}

export async function dbNow(sql: postgres.Sql): Promise<Date> {
  const [row] = await sql<{ now: Date }[]>`SELECT clock_timestamp() AS now`;
  return row!.now;
}

export function postgresOutboxProbe(sql: postgres.Sql, tables: TableNames): OutboxProbe {
  const t = tables.outbox;
  const c = tables.outboxColumns;
  const update = async (
    set: string,
    id: string,
    parameters: (string | number)[] = [],
  ): Promise<void> => {
    await sql.unsafe(`UPDATE ${t} SET ${set} WHERE ${c.id} = $1`, [id, ...parameters]);
  };
  return {
    async clear() {
      await sql.unsafe(`TRUNCATE ${t}`);
    },
    outboxRows: () => readOutboxRows(sql, tables),
    async insertOutbox(rows) {
      const ids: string[] = [];
      for (const row of rows) {
        const [inserted] = await sql.unsafe<{ id: string }[]>(
          `INSERT INTO ${t} (${c.topic}, ${c.key}, ${c.payload}, ${c.state}, ${c.scheduledAt})
           VALUES ($1, $2, '{"n":1}'::jsonb, $3, COALESCE($4::timestamptz, CURRENT_TIMESTAMP))
           RETURNING ${c.id}::text AS "id"`,
          [
            row.topic ?? 'test.topic',
            row.key ?? null,
            row.state ?? 'pending',
            row.scheduledAt ?? null,
          ],
        );
        ids.push(inserted!.id);
      }
      return ids;
    },
    async insertOutboxPayloadText(topic, json) {
      const [inserted] = await sql.unsafe<{ id: string }[]>(
        `INSERT INTO ${t} (${c.topic}, ${c.payload}) VALUES ($1, $2::text::jsonb) RETURNING ${c.id}::text AS "id"`,
        [topic, json],
      );
      return inserted!.id;
    },
    async outboxPayloadText(id) {
      const [row] = await sql.unsafe<{ text: string }[]>(
        `SELECT ${c.payload}::text AS "text" FROM ${t} WHERE ${c.id} = $1`,
        [id],
      );
      return row!.text;
    },
    setOutboxState: (id, state: OutboxState) => update(`${c.state} = $2`, id, [state]),
    expireOutboxLease: (id) =>
      update(`${c.leaseExpiresAt} = clock_timestamp() - interval '1 second'`, id),
    nullOutboxLease: (id) => update(`${c.leaseExpiresAt} = NULL`, id),
    ageOutboxRow: (id, seconds) =>
      update(`${c.createdAt} = clock_timestamp() - $2::int * interval '1 second'`, id, [seconds]),
    dbNow: () => dbNow(sql),
    withOutboxRowLocked: (id, during) =>
      holdLock(sql, `SELECT 1 FROM ${t} WHERE ${c.id} = $1 FOR UPDATE`, id, during),
    withUncommittedOutboxState: (id, state, during) =>
      withUncommitted(
        sql,
        `UPDATE ${t} SET ${c.state} = $2 WHERE ${c.id} = $1`,
        [id, state],
        during,
      ),
  };
}
