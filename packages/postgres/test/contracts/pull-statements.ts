/**
 * The shipped PostgreSQL pull statements (examples/pull/sql/postgresql, spec §9) as the pull
 * contract runs them: the files as they are, positional parameters, the affected row count.
 */
import { readFileSync } from 'node:fs';
import type { PulledRow, PullStatements } from '@queuebox/testing/contracts';
import type postgres from 'postgres';

const dir = new URL('../../../../examples/pull/sql/postgresql/', import.meta.url);
const statement = (name: string) => readFileSync(new URL(`${name}.sql`, dir), 'utf8');
const CLAIM = statement('claim');
const RENEW = statement('renew');
const COMPLETE = statement('complete');
const RETRY = statement('retry');
const DEAD = statement('dead');

export function postgresPullStatements(sql: postgres.Sql): PullStatements {
  const count = async (text: string, parameters: (string | number)[]) =>
    (await sql.unsafe(text, parameters)).count;
  return {
    claim: (source, batch, leaseMs, candLimit) =>
      sql.unsafe<PulledRow[]>(CLAIM, [source, batch, leaseMs, candLimit]),
    renew: (leaseMs, id, token) => count(RENEW, [leaseMs, id, token]),
    complete: (id, token) => count(COMPLETE, [id, token]),
    retry: (delayMs, error, id, token) => count(RETRY, [delayMs, error, id, token]),
    dead: (error, id, token) => count(DEAD, [error, id, token]),
  };
}
