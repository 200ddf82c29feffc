import { requireService } from '@queuebox/testing';
import { pullStatementsContract } from '@queuebox/testing/contracts';
import { reportSkippedSuites } from './skip-report.js';
import { pullTarget } from './sqlserver-targets.js';

const ss = await requireService('sqlserver', 'sqlserver: pull statements contract');

pullStatementsContract(pullTarget(ss));
if (!ss.available) reportSkippedSuites('SQL Server', ss.reason);
