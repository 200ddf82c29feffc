import { join } from 'node:path';
import { examplesOf, requireService } from '@queuebox/testing';
import { reportSkippedSuites, skipTitle } from '@queuebox/testing/contracts';
import { describe, expect, it } from 'vitest';
import { pullWorkerContract } from '../test/contract/pull-worker-contract.js';
import { REPOSITORY, runDocExample } from '../test/docs-examples.js';
import { freshMssqlDatabase, HARNESS_SQL, sqlServerTarget } from '../test/sqlserver-target.js';

const ss = await requireService(
  'sqlserver',
  'inbox client: the pull worker contract on SQL Server',
);

// The same contract on SQL Server (testcontainers, QUEUEBOX_TEST_SQLSERVER_URL or a local port),
// through both forms of fromMssql; where none answers, skipped with the suites and their counts.
pullWorkerContract(sqlServerTarget(ss, 'fromMssql(mssql, pool)'));
pullWorkerContract(sqlServerTarget(ss, 'fromMssql(pool)'));

// The SQL Server examples of docs/pull.md, with plain Node on a database holding pull messages.
const examples = examplesOf(join(REPOSITORY, 'docs/pull.md'), 'docs/pull.md').filter(
  (example) => example.sqlserver,
);
const skip = !ss.available && ss.reason;
describe.skipIf(Boolean(skip))(skipTitle('the SQL Server examples of docs/pull.md', skip), () => {
  it('has at least one', () => {
    expect(examples.length).toBeGreaterThan(0);
  });

  it.each(examples.map((example) => [`docs/pull.md #${example.index + 1}`, example] as const))(
    'runs %s',
    async (_name, example) => {
      const db = await freshMssqlDatabase(ss.available ? ss.url : '');
      try {
        for (const [n, aggregate] of [
          [1, 'a1'],
          [2, null],
        ] as const) {
          await db.pool
            .request()
            .input('key', `key-${n}`)
            .input('aggregate', aggregate)
            .input('payload', JSON.stringify({ n }))
            .query(HARNESS_SQL.insertOrder.text);
        }
        const result = await runDocExample(example, { DATABASE_URL: db.connectionString });
        expect(result.code, result.output).toBe(0);
        expect(result.output).toMatch(example.expect);
      } finally {
        await db.drop();
      }
    },
    60_000,
  );
});

if (!ss.available) reportSkippedSuites('SQL Server', ss.reason);
