import type { Migration } from '@queuebox/core';

// Re-runnable. The unique constraint is the deduplication. SQL Server has idx_inbox_state
// (unfiltered) where PostgreSQL has idx_inbox_pending, and no idx_inbox_source (spec §3.3);
// idx_inbox_state_created, which PostgreSQL adds in V3, is created here.
export const v02CreateInbox: Migration = {
  version: '2',
  description: 'create inbox',
  script: 'V2__create_inbox.sql',
  sql: `-- The inbox table: one row per (source, idempotency key).
IF OBJECT_ID(N'inbox', N'U') IS NULL
    CREATE TABLE inbox (
        id               UNIQUEIDENTIFIER NOT NULL PRIMARY KEY DEFAULT NEWID(),
        source           NVARCHAR(255)    NOT NULL,
        idempotency_key  NVARCHAR(255)    NOT NULL,
        aggregate_id     NVARCHAR(255)    NULL,
        event_type       NVARCHAR(255)    NULL,
        payload          NVARCHAR(MAX)    NOT NULL,
        state            NVARCHAR(50)     NOT NULL DEFAULT 'pending',
        created_at       DATETIME2        NOT NULL DEFAULT GETUTCDATE(),
        processed_at     DATETIME2        NULL,
        CONSTRAINT uq_inbox_source_idempotency UNIQUE (source, idempotency_key)
    );

IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'idx_inbox_state' AND object_id = OBJECT_ID(N'inbox'))
    CREATE INDEX idx_inbox_state ON inbox (state);

-- The relay's busy-aggregate check.
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'idx_inbox_aggregate_state' AND object_id = OBJECT_ID(N'inbox'))
    CREATE INDEX idx_inbox_aggregate_state ON inbox (aggregate_id, state);

-- Retention by age and the oldest-pending gauge.
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'idx_inbox_state_created' AND object_id = OBJECT_ID(N'inbox'))
    CREATE INDEX idx_inbox_state_created ON inbox (state, created_at);
`,
};
