import type { Migration } from '@queuebox/core';

// Not re-runnable. A plain CREATE INDEX blocks inserts while it builds; on a large inbox create
// the same indexes with CREATE INDEX CONCURRENTLY ahead of time (same names) and baseline.
export const v08AddPullClaimIndexes: Migration = {
  version: '8',
  description: 'add pull claim indexes',
  script: 'V8__add_pull_claim_indexes.sql',
  sql: `-- Candidates of the pull claim: pending rows of one source in schedule order.
CREATE INDEX idx_inbox_pull_pending ON inbox (source, scheduled_at, created_at, id)
    WHERE consumption = 'pull' AND state = 'pending';

-- Busy aggregates of the pull claim: rows of one source in flight under a lease.
CREATE INDEX idx_inbox_pull_busy ON inbox (source, aggregate_id, lease_expires_at)
    WHERE consumption = 'pull' AND state = 'processing';

-- Known gap: no index serves the claim's "expired lease" candidate branch. Deliberately not
-- added without a measurement that shows the need.
`,
};
