import { requireService } from '@queuebox/testing';
import { inboxStoreContract } from '@queuebox/testing/contracts';
import { LAYOUTS } from '@queuebox/testing/contracts';
import { inboxTarget } from './postgres-targets.js';

const pg = await requireService('postgres', 'postgres: inbox store contract');

for (const layout of LAYOUTS) inboxStoreContract(inboxTarget(pg, layout));
