import type { Migration } from '@queuebox/core';

// Requires every old worker stopped first: old workers claim without a token or lease. Not
// re-runnable (plain ALTER TABLE), like the reference's. One column per ALTER TABLE ADD, so each
// default and check constraint stands next to its column.
export const v06AddConsumptionAndLeases: Migration = {
  version: '6',
  description: 'add consumption and leases',
  script: 'V6__add_consumption_and_leases.sql',
  sql: `-- STOP EVERY OLD WORKER BEFORE APPLYING THIS FILE.
ALTER TABLE outbox ADD claim_token UNIQUEIDENTIFIER NULL;
ALTER TABLE outbox ADD lease_expires_at DATETIME2 NULL;
ALTER TABLE inbox ADD claim_token UNIQUEIDENTIFIER NULL;
ALTER TABLE inbox ADD lease_expires_at DATETIME2 NULL;
ALTER TABLE inbox ADD consumption VARCHAR(4) NOT NULL CONSTRAINT df_inbox_consumption DEFAULT 'push';
ALTER TABLE inbox ADD scheduled_at DATETIME2 NOT NULL CONSTRAINT df_inbox_scheduled_at DEFAULT SYSUTCDATETIME();
ALTER TABLE inbox ADD attempt INT NOT NULL CONSTRAINT df_inbox_attempt DEFAULT 0;
ALTER TABLE inbox ADD last_error NVARCHAR(MAX) NULL;

-- Statements naming the new columns run through EXEC: the batch compiled before they existed.
EXEC('ALTER TABLE inbox ADD CONSTRAINT ck_inbox_consumption CHECK (consumption IN (''push'', ''pull''))');
EXEC('CREATE INDEX idx_inbox_consumption_pending ON inbox (consumption, state, scheduled_at)');
`,
};
