import { describe, expect, it } from 'vitest';
import { migrations } from './index.js';

// The reference's file names (spec §3.5): the history rows we write name them.
const REFERENCE_SCRIPTS = [
  'V1__create_outbox.sql',
  'V2__create_inbox.sql',
  'V3__add_claimed_at.sql',
  'V4__add_last_error.sql',
  'V5__add_correlation_id.sql',
  'V6__add_consumption_and_leases.sql',
  'V7__capture_state.sql',
  'V8__add_pull_claim_indexes.sql',
  'V9__add_aggregate_type.sql',
  'V10__add_inbox_headers.sql',
  'V11__add_outbox_sequence.sql',
];

describe('the bundled migration set', () => {
  it('is V1..V11 under the reference file names, then the files added after them', () => {
    expect(migrations.slice(0, 11).map((m) => m.script)).toEqual(REFERENCE_SCRIPTS);
    expect(migrations.slice(0, 11).map((m) => m.version)).toEqual(
      REFERENCE_SCRIPTS.map((_s, i) => String(i + 1)),
    );
    expect(migrations.map((m) => m.script)).toContain('V12__add_dead_letter_indexes.sql');
    for (const m of migrations) expect(m.script.startsWith(`V${m.version}__`)).toBe(true);
  });

  it('describes each file as Flyway does: the name after "__" with "_" as space', () => {
    for (const m of migrations) {
      const expected = m.script
        .replace(/^V\d+__/, '')
        .replace(/\.sql$/, '')
        .replace(/_/g, ' ');
      expect(m.description).toBe(expected);
    }
  });

  it('keeps V7 the plain DDL text both dialects share', () => {
    expect(migrations[6]?.sql.trim()).toBe(
      'CREATE TABLE queuebox_capture_state (identity_name VARCHAR(63) PRIMARY KEY, state_id VARCHAR(36) NOT NULL, config_fingerprint VARCHAR(64) NOT NULL);',
    );
  });
});
