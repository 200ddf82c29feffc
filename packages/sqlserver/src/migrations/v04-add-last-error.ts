import type { Migration } from '@queuebox/core';

// Re-runnable.
export const v04AddLastError: Migration = {
  version: '4',
  description: 'add last error',
  script: 'V4__add_last_error.sql',
  sql: `-- The sanitized reason of the last failed delivery.
IF COL_LENGTH(N'outbox', N'last_error') IS NULL
    ALTER TABLE outbox ADD last_error NVARCHAR(MAX) NULL;
`,
};
