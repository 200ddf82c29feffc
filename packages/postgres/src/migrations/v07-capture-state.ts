import type { Migration } from '@queuebox/core';

// The same plain DDL text on both databases (spec §3.4): no IF NOT EXISTS. The table exists even
// when capture is never enabled and is never renamed by column mapping.
export const v07CaptureState: Migration = {
  version: '7',
  description: 'capture state',
  script: 'V7__capture_state.sql',
  sql: `CREATE TABLE queuebox_capture_state (identity_name VARCHAR(63) PRIMARY KEY, state_id VARCHAR(36) NOT NULL, config_fingerprint VARCHAR(64) NOT NULL);
`,
};
