import type { Migration } from '@queuebox/core';

export const v03AddClaimedAt: Migration = {
  version: '3',
  description: 'add claimed at',
  script: 'V3__add_claimed_at.sql',
  sql: `-- When a claim was taken, so the reclaim step can find claims that a crash left behind.
ALTER TABLE outbox ADD COLUMN IF NOT EXISTS claimed_at TIMESTAMPTZ;
ALTER TABLE inbox ADD COLUMN IF NOT EXISTS claimed_at TIMESTAMPTZ;

CREATE INDEX IF NOT EXISTS idx_outbox_processing_claimed ON outbox (claimed_at) WHERE state = 'processing';
CREATE INDEX IF NOT EXISTS idx_inbox_processing_claimed ON inbox (claimed_at) WHERE state = 'processing';

-- Retention and the relay gauges read the inbox by state and age.
CREATE INDEX IF NOT EXISTS idx_inbox_state_created ON inbox (state, created_at);
`,
};
