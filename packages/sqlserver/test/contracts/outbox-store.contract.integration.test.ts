import { requireService } from '@queuebox/testing';
import { outboxStoreContract } from '@queuebox/testing/contracts';
import { LAYOUTS } from '@queuebox/testing/contracts';
import { reportSkippedSuites } from './skip-report.js';
import { outboxTarget } from './sqlserver-targets.js';

const ss = await requireService('sqlserver', 'sqlserver: outbox store contract');

for (const layout of LAYOUTS) outboxStoreContract(outboxTarget(ss, layout));
if (!ss.available) reportSkippedSuites('SQL Server', ss.reason);
