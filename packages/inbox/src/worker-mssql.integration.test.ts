import { requireService } from '@queuebox/testing';
import { reportSkippedSuites } from '@queuebox/testing/contracts';
import { pullWorkerContract } from '../test/contract/pull-worker-contract.js';
import { sqlServerTarget } from '../test/sqlserver-target.js';

const ss = await requireService(
  'sqlserver',
  'inbox client: the pull worker contract on SQL Server',
);

// The same contract on SQL Server (testcontainers, QUEUEBOX_TEST_SQLSERVER_URL or a local port),
// through both forms of fromMssql; where none answers, skipped with the suites and their counts.
pullWorkerContract(sqlServerTarget(ss, 'fromMssql(mssql, pool)'));
pullWorkerContract(sqlServerTarget(ss, 'fromMssql(pool)'));
if (!ss.available) reportSkippedSuites('SQL Server', ss.reason);
