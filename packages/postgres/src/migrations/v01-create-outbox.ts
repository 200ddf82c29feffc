import type { Migration } from '@queuebox/core';

// Re-runnable (IF NOT EXISTS) like every file before V6, so a database where an operator ran
// the DDL by hand can be baselined or re-applied without failing.
export const v01CreateOutbox: Migration = {
  version: '1',
  description: 'create outbox',
  script: 'V1__create_outbox.sql',
  sql: `-- The outbox table: the application inserts a row in the transaction of its business write.
CREATE TABLE IF NOT EXISTS outbox (
    id            UUID         PRIMARY KEY DEFAULT gen_random_uuid(),
    topic         VARCHAR(255) NOT NULL,
    key           VARCHAR(255),
    payload       JSONB        NOT NULL,
    headers       JSONB        NOT NULL DEFAULT '{}',
    state         VARCHAR(50)  NOT NULL DEFAULT 'pending',
    attempt       INTEGER      NOT NULL DEFAULT 0,
    max_attempts  INTEGER      NOT NULL DEFAULT 5,
    scheduled_at  TIMESTAMPTZ  NOT NULL DEFAULT CURRENT_TIMESTAMP,
    created_at    TIMESTAMPTZ  NOT NULL DEFAULT CURRENT_TIMESTAMP,
    updated_at    TIMESTAMPTZ  NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- The poller's due check reads pending rows by schedule.
CREATE INDEX IF NOT EXISTS idx_outbox_pending_scheduled ON outbox (state, scheduled_at) WHERE state = 'pending';

-- Route validation and replay by topic.
CREATE INDEX IF NOT EXISTS idx_outbox_topic ON outbox (topic);
`,
};
