import type { Migration } from '@queuebox/core';

// Re-runnable (OBJECT_ID / sys.indexes guards) like every file before V6, so a database where an
// operator ran the DDL by hand can be baselined or re-applied without failing. One batch, no GO
// (spec §3.5): CREATE INDEX may follow CREATE TABLE in one batch (deferred name resolution).
export const v01CreateOutbox: Migration = {
  version: '1',
  description: 'create outbox',
  script: 'V1__create_outbox.sql',
  sql: `-- The outbox table: the application inserts a row in the transaction of its business write.
IF OBJECT_ID(N'outbox', N'U') IS NULL
    CREATE TABLE outbox (
        id            UNIQUEIDENTIFIER NOT NULL PRIMARY KEY DEFAULT NEWID(),
        topic         NVARCHAR(255)    NOT NULL,
        [key]         NVARCHAR(255)    NULL,
        payload       NVARCHAR(MAX)    NOT NULL,
        headers       NVARCHAR(MAX)    NOT NULL DEFAULT '{}',
        state         NVARCHAR(50)     NOT NULL DEFAULT 'pending',
        attempt       INT              NOT NULL DEFAULT 0,
        max_attempts  INT              NOT NULL DEFAULT 5,
        scheduled_at  DATETIME2        NOT NULL DEFAULT GETUTCDATE(),
        created_at    DATETIME2        NOT NULL DEFAULT GETUTCDATE(),
        updated_at    DATETIME2        NOT NULL DEFAULT GETUTCDATE()
    );

-- The poller's due check reads pending rows by schedule (filtered: needs QUOTED_IDENTIFIER ON).
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'idx_outbox_pending_scheduled' AND object_id = OBJECT_ID(N'outbox'))
    CREATE INDEX idx_outbox_pending_scheduled ON outbox (state, scheduled_at) WHERE state = 'pending';

-- Gauges and retention read by state and last change.
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'idx_outbox_state_updated' AND object_id = OBJECT_ID(N'outbox'))
    CREATE INDEX idx_outbox_state_updated ON outbox (state, updated_at);
`,
};
