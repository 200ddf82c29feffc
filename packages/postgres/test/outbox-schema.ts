import type postgres from 'postgres';
import {
  RENAMED_INBOX,
  RENAMED_INBOX_COLUMNS,
  RENAMED_OUTBOX,
  RENAMED_OUTBOX_COLUMNS,
} from '@queuebox/testing/contracts';
import { databaseConfig, recordingLogger } from './support.js';
import { runMigrations } from '../src/migrator/migrate.js';
import { tableNamesFrom, type TableNames } from '../src/schema/table-names.js';

/**
 * Test support for the outbox and retention store tests: the two schemas every store test runs
 * on. The default one comes from the bundled migrations; the renamed one is the reference DDL
 * (spec §3.2, §3.3, same types, defaults and partial indexes) with every table and column renamed
 * as the contracts' renamed layout is, in mixed case so that a missing quote fails loudly.
 */
export interface StoreSchema {
  readonly label: string;
  readonly tables: TableNames;
  create(sql: postgres.Sql): Promise<void>;
}

export const defaultSchema: StoreSchema = {
  label: 'default tables',
  tables: tableNamesFrom(databaseConfig()),
  async create(sql) {
    await runMigrations(sql, { logger: recordingLogger() });
  },
};

export const renamedSchema: StoreSchema = {
  label: 'renamed tables and columns',
  tables: tableNamesFrom(
    databaseConfig({
      outboxTableName: RENAMED_OUTBOX,
      inboxTableName: RENAMED_INBOX,
      outboxColumns: RENAMED_OUTBOX_COLUMNS,
      inboxColumns: RENAMED_INBOX_COLUMNS,
    }),
  ),
  async create(sql) {
    await sql.unsafe(renamedDdl()).simple();
  },
};

function renamedDdl(): string {
  const o = renamedSchema.tables.outboxColumns;
  const ot = renamedSchema.tables.outbox;
  const i = renamedSchema.tables.inboxColumns;
  const it = renamedSchema.tables.inbox;
  return `
CREATE SEQUENCE my_outbox_seq AS BIGINT;
CREATE TABLE ${ot} (
  ${o.id} UUID PRIMARY KEY DEFAULT gen_random_uuid(),
  ${o.topic} VARCHAR(255) NOT NULL,
  ${o.key} VARCHAR(255),
  ${o.payload} JSONB NOT NULL,
  ${o.headers} JSONB NOT NULL DEFAULT '{}',
  ${o.aggregateType} VARCHAR(255),
  ${o.state} VARCHAR(50) NOT NULL DEFAULT 'pending',
  ${o.attempt} INTEGER NOT NULL DEFAULT 0,
  ${o.maxAttempts} INTEGER NOT NULL DEFAULT 5,
  ${o.scheduledAt} TIMESTAMPTZ NOT NULL DEFAULT CURRENT_TIMESTAMP,
  ${o.createdAt} TIMESTAMPTZ NOT NULL DEFAULT CURRENT_TIMESTAMP,
  ${o.updatedAt} TIMESTAMPTZ NOT NULL DEFAULT CURRENT_TIMESTAMP,
  ${o.claimedAt} TIMESTAMPTZ,
  ${o.claimToken} UUID,
  ${o.leaseExpiresAt} TIMESTAMPTZ,
  ${o.lastError} TEXT,
  ${o.sequence} BIGINT NOT NULL DEFAULT nextval('my_outbox_seq')
);
ALTER SEQUENCE my_outbox_seq OWNED BY ${ot}.${o.sequence};
CREATE INDEX my_outbox_pending_scheduled ON ${ot} (${o.state}, ${o.scheduledAt}) WHERE ${o.state} = 'pending';
CREATE INDEX my_outbox_topic ON ${ot} (${o.topic});
CREATE INDEX my_outbox_processing_claimed ON ${ot} (${o.claimedAt}) WHERE ${o.state} = 'processing';
CREATE INDEX my_outbox_key_sequence ON ${ot} (${o.key}, ${o.sequence}) WHERE ${o.state} IN ('pending', 'processing');

CREATE TABLE ${it} (
  ${i.id} UUID PRIMARY KEY DEFAULT gen_random_uuid(),
  ${i.source} VARCHAR(255) NOT NULL,
  ${i.idempotencyKey} VARCHAR(255) NOT NULL,
  ${i.aggregateId} VARCHAR(255),
  ${i.eventType} VARCHAR(255),
  ${i.payload} JSONB NOT NULL,
  ${i.headers} JSONB NOT NULL DEFAULT '{}',
  ${i.correlationId} VARCHAR(128),
  ${i.consumption} VARCHAR(4) NOT NULL DEFAULT 'push' CHECK (${i.consumption} IN ('push', 'pull')),
  ${i.state} VARCHAR(50) NOT NULL DEFAULT 'pending',
  ${i.createdAt} TIMESTAMPTZ NOT NULL DEFAULT CURRENT_TIMESTAMP,
  ${i.processedAt} TIMESTAMPTZ,
  ${i.scheduledAt} TIMESTAMPTZ NOT NULL DEFAULT CURRENT_TIMESTAMP,
  ${i.attempt} INTEGER NOT NULL DEFAULT 0,
  ${i.lastError} TEXT,
  ${i.claimedAt} TIMESTAMPTZ,
  ${i.claimToken} UUID,
  ${i.leaseExpiresAt} TIMESTAMPTZ,
  CONSTRAINT my_inbox_source_idempotency UNIQUE (${i.source}, ${i.idempotencyKey})
);
CREATE INDEX my_inbox_state_created ON ${it} (${i.state}, ${i.createdAt});
`;
}
