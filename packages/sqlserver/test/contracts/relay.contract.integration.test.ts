import { requireService } from '@queuebox/testing';
import { relayContract } from '@queuebox/testing/contracts';
import { LAYOUTS } from '@queuebox/testing/contracts';
import { reportSkippedSuites } from './skip-report.js';
import { inboxTarget } from './sqlserver-targets.js';

const ss = await requireService('sqlserver', 'sqlserver: relay contract');

for (const layout of LAYOUTS) relayContract(inboxTarget(ss, layout));
if (!ss.available) reportSkippedSuites('SQL Server', ss.reason);
