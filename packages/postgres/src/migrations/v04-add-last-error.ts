import type { Migration } from '@queuebox/core';

export const v04AddLastError: Migration = {
  version: '4',
  description: 'add last error',
  script: 'V4__add_last_error.sql',
  sql: `-- The sanitized, truncated reason of the last failed delivery.
ALTER TABLE outbox ADD COLUMN IF NOT EXISTS last_error TEXT;
`,
};
