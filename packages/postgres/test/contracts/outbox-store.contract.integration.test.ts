import { requireService } from '@queuebox/testing';
import { outboxStoreContract } from '@queuebox/testing/contracts';
import { LAYOUTS } from '@queuebox/testing/contracts';
import { outboxTarget } from './postgres-targets.js';

const pg = await requireService('postgres', 'postgres: outbox store contract');

for (const layout of LAYOUTS) outboxStoreContract(outboxTarget(pg, layout));
