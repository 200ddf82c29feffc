/** The outbox probe of the contracts on SQL Server: raw T-SQL on the mapped names, DB clock. */
import type { OutboxState } from '@queuebox/core';
import type { Session, SqlServerPool, TableNames } from '@queuebox/sqlserver';
import type { OutboxProbe, OutboxRow } from '@queuebox/testing/contracts';

type P = {
  name: string;
  type: 'nvarchar' | 'uniqueidentifier' | 'datetime2' | 'int';
  value: unknown;
};
const nv = (name: string, value: string | null): P => ({ name, type: 'nvarchar', value });
const id = (value: string): P => ({ name: 'id', type: 'uniqueidentifier', value });

export function sqlServerOutboxProbe(pool: SqlServerPool, tables: TableNames): OutboxProbe {
  const t = tables.outbox;
  const c = tables.outboxColumns;
  const run = <R>(text: string, params: P[] = []) =>
    pool.withSession((session) => session.run<R>({ text, params }));
  const update = async (set: string, rowId: string, params: P[] = []) => {
    await run(`UPDATE ${t} SET ${set} WHERE ${c.id} = @id`, [id(rowId), ...params]);
  };
  const select = `SELECT LOWER(CAST(${c.id} AS VARCHAR(36))) AS id, ${c.topic} AS topic, ${c.key} AS [key], ${c.state} AS state,
    ${c.attempt} AS attempt, ${c.maxAttempts} AS maxAttempts, ${c.headers} AS headers, ${c.payload} AS payload,
    ${c.aggregateType} AS aggregateType, ${c.scheduledAt} AS scheduledAt, ${c.createdAt} AS createdAt,
    ${c.updatedAt} AS updatedAt, ${c.claimedAt} AS claimedAt, LOWER(CAST(${c.claimToken} AS VARCHAR(36))) AS claimToken,
    ${c.leaseExpiresAt} AS leaseExpiresAt, ${c.lastError} AS lastError, CAST(${c.sequence} AS VARCHAR(20)) AS sequence
    FROM ${t} ORDER BY ${c.sequence}`;
  /** Holds a transaction open on its own connection while `during` runs, then commits it. */
  const holding = (text: string, params: P[], during: () => Promise<void>) =>
    pool.withSession((session: Session) =>
      session.inTransaction(async () => {
        await session.run({ text, params });
        await during();
      }),
    );
  return {
    async clear() {
      await run(`DELETE FROM ${t}`);
    },
    async outboxRows() {
      const rows = await run<Record<string, unknown>>(select);
      return rows.rows.map(
        (row) =>
          ({
            ...row,
            headers: JSON.parse(row.headers as string) as unknown,
            payload: JSON.parse(row.payload as string) as unknown,
            sequence: BigInt(row.sequence as string),
          }) as unknown as OutboxRow,
      );
    },
    async insertOutbox(rows) {
      const ids: string[] = [];
      for (const row of rows) {
        const inserted = await run<{ id: string }>(
          `INSERT INTO ${t} (${c.topic}, ${c.key}, ${c.payload}, ${c.state}, ${c.scheduledAt})
           OUTPUT LOWER(CAST(INSERTED.${c.id} AS VARCHAR(36))) AS id
           VALUES (@topic, @key, N'{"n":1}', @state, COALESCE(@scheduledAt, GETUTCDATE()))`,
          [
            nv('topic', row.topic ?? 'test.topic'),
            nv('key', row.key ?? null),
            nv('state', row.state ?? 'pending'),
            { name: 'scheduledAt', type: 'datetime2', value: row.scheduledAt ?? null },
          ],
        );
        ids.push(inserted.rows[0]!.id);
      }
      return ids;
    },
    async insertOutboxPayloadText(topic, json) {
      const inserted = await run<{ id: string }>(
        `INSERT INTO ${t} (${c.topic}, ${c.payload}) OUTPUT LOWER(CAST(INSERTED.${c.id} AS VARCHAR(36))) AS id VALUES (@topic, @payload)`,
        [nv('topic', topic), nv('payload', json)],
      );
      return inserted.rows[0]!.id;
    },
    async outboxPayloadText(rowId) {
      const rows = await run<{ text: string }>(
        `SELECT ${c.payload} AS text FROM ${t} WHERE ${c.id} = @id`,
        [id(rowId)],
      );
      return rows.rows[0]!.text;
    },
    setOutboxState: (rowId, state: OutboxState) =>
      update(`${c.state} = @state`, rowId, [nv('state', state)]),
    expireOutboxLease: (rowId) =>
      update(`${c.leaseExpiresAt} = DATEADD(second, -1, SYSUTCDATETIME())`, rowId),
    nullOutboxLease: (rowId) => update(`${c.leaseExpiresAt} = NULL`, rowId),
    ageOutboxRow: (rowId, seconds) =>
      update(`${c.createdAt} = DATEADD(second, -@seconds, SYSUTCDATETIME())`, rowId, [
        { name: 'seconds', type: 'int', value: seconds },
      ]),
    async dbNow() {
      return (await run<{ now: Date }>('SELECT SYSUTCDATETIME() AS now')).rows[0]!.now;
    },
    withOutboxRowLocked: (rowId, during) =>
      holding(
        `SELECT 1 FROM ${t} WITH (UPDLOCK, ROWLOCK) WHERE ${c.id} = @id`,
        [id(rowId)],
        during,
      ),
    withUncommittedOutboxState: (rowId, state, during) =>
      holding(
        `UPDATE ${t} SET ${c.state} = @state WHERE ${c.id} = @id`,
        [id(rowId), nv('state', state)],
        during,
      ),
  };
}
