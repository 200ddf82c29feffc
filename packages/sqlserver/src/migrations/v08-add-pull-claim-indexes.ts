import type { Migration } from '@queuebox/core';

// Not re-runnable. A plain CREATE INDEX blocks inserts while it builds; on a large inbox create
// the same indexes WITH (ONLINE = ON) ahead of time (Enterprise edition), then apply this file
// with --baseline 8. Known gap, as in the reference: no index serves the pull claim's expired-
// lease branch; none is added without a measurement.
export const v08AddPullClaimIndexes: Migration = {
  version: '8',
  description: 'add pull claim indexes',
  script: 'V8__add_pull_claim_indexes.sql',
  sql: `-- The pull claim's due branch: pending pull rows of one source in claim order.
CREATE INDEX idx_inbox_pull_pending ON inbox (source, scheduled_at, created_at, id) WHERE consumption = 'pull' AND state = 'pending';

-- The pull claim's busy check: live leases of one source and aggregate.
CREATE INDEX idx_inbox_pull_busy ON inbox (source, aggregate_id, lease_expires_at) WHERE consumption = 'pull' AND state = 'processing';
`,
};
