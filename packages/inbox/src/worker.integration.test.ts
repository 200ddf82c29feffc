import { requireService } from '@queuebox/testing';
import { pullWorkerContract } from '../test/contract/pull-worker-contract.js';
import { postgresTarget } from '../test/postgres-target.js';

const pg = await requireService('postgres', 'inbox client: the pull worker contract');

// The library contract of spec §9.3 on the real PostgreSQL, through both PostgreSQL adapters.
pullWorkerContract(postgresTarget(pg, 'fromPg'));
pullWorkerContract(postgresTarget(pg, 'fromPostgresJs'));
