import { requireService } from '@queuebox/testing';
import { pullStatementsContract } from '@queuebox/testing/contracts';
import { pullTarget } from './postgres-targets.js';

const pg = await requireService('postgres', 'postgres: pull statements contract');

pullStatementsContract(pullTarget(pg));
