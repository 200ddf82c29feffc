/**
 * The shipped SQL Server pull statements (examples/pull/sql/sqlserver, spec §9) as the pull
 * contract runs them: the files as they are, parameters by position (@p1..), the affected row
 * count. Uniqueidentifiers come back upper-case and JSON as text (spec §9.3: "SS returns text
 * that must be parsed"); the harness gives them back as the contract reads them.
 */
import type { SqlServerPool } from '@queuebox/sqlserver';
import type { PulledRow, PullStatements } from '@queuebox/testing/contracts';
import { pullSqlText, pullStatement, type PullStatementName } from '../pull-sql.js';

const TEXT = {
  claim: pullSqlText('claim'),
  renew: pullSqlText('renew'),
  complete: pullSqlText('complete'),
  retry: pullSqlText('retry'),
  dead: pullSqlText('dead'),
};

export function sqlServerPullStatements(pool: SqlServerPool): PullStatements {
  const run = (name: PullStatementName, values: readonly unknown[]) =>
    pool.withSession((session) =>
      session.run<Record<string, unknown>>(pullStatement(name, TEXT[name], values)),
    );
  const count = async (name: PullStatementName, values: readonly unknown[]) =>
    (await run(name, values)).rowCount;
  return {
    async claim(source, batch, leaseMs, candLimit) {
      const { recordsets } = await run('claim', [source, batch, leaseMs, candLimit]);
      // The batch's last result set is the read-back of the claimed rows.
      return (recordsets.at(-1) ?? []).map(
        (row) =>
          ({
            ...row,
            id: String(row.id).toLowerCase(),
            claim_token: String(row.claim_token).toLowerCase(),
            payload: JSON.parse(row.payload as string) as unknown,
            headers: JSON.parse(row.headers as string) as unknown,
          }) as unknown as PulledRow,
      );
    },
    renew: (leaseMs, id, token) => count('renew', [leaseMs, id, token]),
    complete: (id, token) => count('complete', [id, token]),
    retry: (delayMs, error, id, token) => count('retry', [delayMs, error, id, token]),
    dead: (error, id, token) => count('dead', [error, id, token]),
  };
}
