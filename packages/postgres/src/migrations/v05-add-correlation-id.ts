import type { Migration } from '@queuebox/core';

export const v05AddCorrelationId: Migration = {
  version: '5',
  description: 'add correlation id',
  script: 'V5__add_correlation_id.sql',
  sql: `-- X-Correlation-Id of the received message (at most 128 characters).
ALTER TABLE inbox ADD COLUMN IF NOT EXISTS correlation_id VARCHAR(128);
`,
};
