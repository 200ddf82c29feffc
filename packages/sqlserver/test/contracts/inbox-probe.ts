/** The inbox probe of the contracts on SQL Server: raw T-SQL on the mapped names, DB clock. */
import type { InboxState } from '@queuebox/core';
import type { Param, Session, SqlServerPool, TableNames } from '@queuebox/sqlserver';
import type { InboxProbe, InboxRow, OutboxProbe } from '@queuebox/testing/contracts';

const id = (value: string): Param => ({ name: 'id', type: 'uniqueidentifier', value });

/** Every inbox column under the port's field name, in (scheduled_at, created_at, id) order. */
export function selectInboxRows(tables: TableNames): string {
  const c = tables.inboxColumns;
  return `SELECT LOWER(CAST(${c.id} AS VARCHAR(36))) AS id, ${c.source} AS source, ${c.idempotencyKey} AS idempotencyKey,
    ${c.aggregateId} AS aggregateId, ${c.eventType} AS eventType, ${c.payload} AS payload, ${c.headers} AS headers,
    ${c.correlationId} AS correlationId, ${c.consumption} AS consumption, ${c.state} AS state,
    ${c.createdAt} AS createdAt, ${c.processedAt} AS processedAt, ${c.scheduledAt} AS scheduledAt,
    ${c.attempt} AS attempt, ${c.lastError} AS lastError, ${c.claimedAt} AS claimedAt,
    LOWER(CAST(${c.claimToken} AS VARCHAR(36))) AS claimToken, ${c.leaseExpiresAt} AS leaseExpiresAt
    FROM ${tables.inbox} ORDER BY ${c.scheduledAt}, ${c.createdAt}, CAST(${c.id} AS CHAR(36))`;
}

export function sqlServerInboxProbe(
  pool: SqlServerPool,
  tables: TableNames,
  outbox: OutboxProbe,
): InboxProbe {
  const t = tables.inbox;
  const c = tables.inboxColumns;
  const run = <R>(text: string, params: Param[] = []) =>
    pool.withSession((session) => session.run<R>({ text, params }));
  const update = async (set: string, rowId: string, params: Param[] = []) => {
    await run(`UPDATE ${t} SET ${set} WHERE ${c.id} = @id`, [id(rowId), ...params]);
  };
  return {
    async clear() {
      await run(`DELETE FROM ${t}`);
      await outbox.clear();
    },
    async inboxRows() {
      const { rows } = await run<Record<string, unknown>>(selectInboxRows(tables));
      return rows.map(
        (row) =>
          ({
            ...row,
            payload: JSON.parse(row.payload as string) as unknown,
            headers: JSON.parse(row.headers as string) as unknown,
          }) as unknown as InboxRow,
      );
    },
    outboxRows: () => outbox.outboxRows(),
    setInboxProcessing: (rowId, leaseMs) =>
      update(
        `${c.state} = 'processing', ${c.claimedAt} = SYSUTCDATETIME(), ${c.leaseExpiresAt} = ${
          leaseMs === null ? 'NULL' : 'DATEADD(millisecond, @leaseMs, SYSUTCDATETIME())'
        }`,
        rowId,
        leaseMs === null ? [] : [{ name: 'leaseMs', type: 'int', value: leaseMs }],
      ),
    setInboxState: (rowId, state: InboxState) =>
      update(`${c.state} = @state`, rowId, [{ name: 'state', type: 'nvarchar', value: state }]),
    expireInboxLease: (rowId) =>
      update(`${c.leaseExpiresAt} = DATEADD(second, -1, SYSUTCDATETIME())`, rowId),
    dbNow: () => outbox.dbNow(),
    withInboxRowLocked: (rowId, during) =>
      pool.withSession((session: Session) =>
        session
          .inTransaction(async () => {
            await session.run({
              text: `SELECT 1 FROM ${t} WITH (UPDLOCK, ROWLOCK) WHERE ${c.id} = @id`,
              params: [id(rowId)],
            });
            await during();
            // Rolled back, as the probe promises: the holder changed nothing anyway.
            throw ROLL_BACK;
          })
          .catch((error: unknown) => {
            if (error !== ROLL_BACK) throw error;
          }),
      ),
  };
}

/** Thrown to end the holder's transaction with a rollback; caught right there. */
const ROLL_BACK = new Error('roll back the lock holder');
