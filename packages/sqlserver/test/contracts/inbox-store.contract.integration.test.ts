import { requireService } from '@queuebox/testing';
import { inboxStoreContract } from '@queuebox/testing/contracts';
import { LAYOUTS } from '@queuebox/testing/contracts';
import { reportSkippedSuites } from './skip-report.js';
import { inboxTarget } from './sqlserver-targets.js';

const ss = await requireService('sqlserver', 'sqlserver: inbox store contract');

for (const layout of LAYOUTS) inboxStoreContract(inboxTarget(ss, layout));
if (!ss.available) reportSkippedSuites('SQL Server', ss.reason);
