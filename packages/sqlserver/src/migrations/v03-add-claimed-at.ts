import type { Migration } from '@queuebox/core';

// Re-runnable (COL_LENGTH guards). The indexes name a column this batch adds, which the batch
// cannot compile against, so they run through EXEC (spec §3.5: no GO).
export const v03AddClaimedAt: Migration = {
  version: '3',
  description: 'add claimed at',
  script: 'V3__add_claimed_at.sql',
  sql: `-- When a row was claimed: the reclaim step finds stale processing rows by it.
IF COL_LENGTH(N'outbox', N'claimed_at') IS NULL
    ALTER TABLE outbox ADD claimed_at DATETIME2 NULL;

IF COL_LENGTH(N'inbox', N'claimed_at') IS NULL
    ALTER TABLE inbox ADD claimed_at DATETIME2 NULL;

IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'idx_outbox_processing_claimed' AND object_id = OBJECT_ID(N'outbox'))
    EXEC('CREATE INDEX idx_outbox_processing_claimed ON outbox (claimed_at) WHERE state = ''processing''');

IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'idx_inbox_processing_claimed' AND object_id = OBJECT_ID(N'inbox'))
    EXEC('CREATE INDEX idx_inbox_processing_claimed ON inbox (claimed_at) WHERE state = ''processing''');
`,
};
