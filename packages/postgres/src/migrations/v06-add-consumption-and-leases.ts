import type { Migration } from '@queuebox/core';

// Not re-runnable (spec §3.5). Requires every old worker stopped first: the old and the new
// claim contracts must never run together.
export const v06AddConsumptionAndLeases: Migration = {
  version: '6',
  description: 'add consumption and leases',
  script: 'V6__add_consumption_and_leases.sql',
  sql: `-- Claim tokens and DB-clock leases fence every write of a claimer that lost its claim.
-- STOP EVERY OLD WORKER BEFORE APPLYING THIS FILE.
ALTER TABLE outbox ADD COLUMN claim_token UUID;
ALTER TABLE outbox ADD COLUMN lease_expires_at TIMESTAMPTZ;

ALTER TABLE inbox ADD COLUMN claim_token UUID;
ALTER TABLE inbox ADD COLUMN lease_expires_at TIMESTAMPTZ;

-- push: the relay forwards the row into the outbox; pull: the application's worker claims it.
ALTER TABLE inbox ADD COLUMN consumption VARCHAR(4) NOT NULL DEFAULT 'push'
    CONSTRAINT inbox_consumption_check CHECK (consumption IN ('push', 'pull'));
ALTER TABLE inbox ADD COLUMN scheduled_at TIMESTAMPTZ NOT NULL DEFAULT CURRENT_TIMESTAMP;
ALTER TABLE inbox ADD COLUMN attempt INT NOT NULL DEFAULT 0;
ALTER TABLE inbox ADD COLUMN last_error TEXT;

CREATE INDEX idx_inbox_consumption_pending ON inbox (consumption, state, scheduled_at);
`,
};
