import { requireService } from '@queuebox/testing';
import { relayContract } from '@queuebox/testing/contracts';
import { LAYOUTS } from '@queuebox/testing/contracts';
import { inboxTarget } from './postgres-targets.js';

const pg = await requireService('postgres', 'postgres: relay contract');

for (const layout of LAYOUTS) relayContract(inboxTarget(pg, layout));
