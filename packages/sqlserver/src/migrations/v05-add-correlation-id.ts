import type { Migration } from '@queuebox/core';

// Re-runnable.
export const v05AddCorrelationId: Migration = {
  version: '5',
  description: 'add correlation id',
  script: 'V5__add_correlation_id.sql',
  sql: `-- X-Correlation-Id of the request that stored the row, or a generated one.
IF COL_LENGTH(N'inbox', N'correlation_id') IS NULL
    ALTER TABLE inbox ADD correlation_id NVARCHAR(128) NULL;
`,
};
