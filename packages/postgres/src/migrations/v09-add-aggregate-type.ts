import type { Migration } from '@queuebox/core';

export const v09AddAggregateType: Migration = {
  version: '9',
  description: 'add aggregate type',
  script: 'V9__add_aggregate_type.sql',
  sql: `-- Optional: destinations can take their address from it (exchangeFrom/topicFrom/subjectFrom).
ALTER TABLE outbox ADD COLUMN aggregate_type VARCHAR(255);
`,
};
