import type { Migration } from '@queuebox/core';

export const v10AddInboxHeaders: Migration = {
  version: '10',
  description: 'add inbox headers',
  script: 'V10__add_inbox_headers.sql',
  sql: `-- The received headers, one string per name. Guarded, because an operator may already have
-- added it by following the schema guard's message.
ALTER TABLE inbox ADD COLUMN IF NOT EXISTS headers JSONB NOT NULL DEFAULT '{}';
`,
};
