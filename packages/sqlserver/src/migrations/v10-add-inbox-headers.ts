import type { Migration } from '@queuebox/core';

// Re-runnable. Custom (renamed) tables need the same column: the schema guard names the ALTER.
export const v10AddInboxHeaders: Migration = {
  version: '10',
  description: 'add inbox headers',
  script: 'V10__add_inbox_headers.sql',
  sql: `-- Received headers, one string per name.
IF COL_LENGTH(N'inbox', N'headers') IS NULL
    ALTER TABLE inbox ADD headers NVARCHAR(MAX) NOT NULL CONSTRAINT df_inbox_headers DEFAULT '{}';
`,
};
