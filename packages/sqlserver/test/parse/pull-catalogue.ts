import { PULL_STATEMENTS, pullSqlText, pullStatement } from '../pull-sql.js';
import type { Entry } from './catalogue.js';

const ID = '00000000-0000-4000-8000-000000000001';
const SAMPLE: Record<(typeof PULL_STATEMENTS)[number], readonly unknown[]> = {
  claim: ['orders', 10, 30_000, 50],
  renew: [30_000, ID, ID],
  complete: [ID, ID],
  retry: [1000, 'boom', ID, ID],
  dead: ['gave up', ID, ID],
};

/** The shipped pull statements (default tables only: they name them). */
export function pullEntries(): Entry[] {
  return PULL_STATEMENTS.map((name) => ({
    name: `pull (examples/pull/sql/sqlserver/${name}.sql)`,
    statement: pullStatement(name, pullSqlText(name), SAMPLE[name]),
  }));
}
