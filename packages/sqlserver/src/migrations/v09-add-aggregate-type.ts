import type { Migration } from '@queuebox/core';

// Not re-runnable, like the reference's.
export const v09AddAggregateType: Migration = {
  version: '9',
  description: 'add aggregate type',
  script: 'V9__add_aggregate_type.sql',
  sql: `-- The kind of aggregate a message belongs to (optional; written by the application).
ALTER TABLE outbox ADD aggregate_type NVARCHAR(255) NULL;
`,
};
