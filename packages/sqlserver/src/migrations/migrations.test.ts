import { describe, expect, it } from 'vitest';
import { migrations as postgresMigrations } from '@queuebox/postgres';
import { flywayChecksum } from '@queuebox/core';
import { migrations } from './index.js';

describe('the bundled SQL Server migrations', () => {
  it('have the versions, descriptions and file names of the PostgreSQL set (spec §3.5)', () => {
    const shape = (set: typeof migrations) =>
      set.map(({ version, description, script }) => ({ version, description, script }));
    expect(shape(migrations)).toEqual(shape(postgresMigrations));
    expect(migrations.map((m) => m.version)).toEqual(
      Array.from({ length: 12 }, (_, i) => String(i + 1)),
    );
  });

  it('use no GO separator and quote the reserved column name key', () => {
    for (const migration of migrations) {
      expect(migration.sql).not.toMatch(/^\s*GO\s*$/im);
      expect(migration.sql).not.toMatch(/[(,]\s*key\b/i);
    }
  });

  it('create the reference names: constraints, defaults, sequence and indexes', () => {
    const all = migrations.map((m) => m.sql).join('\n');
    for (const name of [
      'uq_inbox_source_idempotency',
      'df_inbox_headers',
      'df_outbox_sequence',
      'outbox_sequence_seq',
      'idx_outbox_pending_scheduled',
      'idx_outbox_state_updated',
      'idx_outbox_processing_claimed',
      'idx_outbox_key_sequence',
      'idx_inbox_state',
      'idx_inbox_aggregate_state',
      'idx_inbox_processing_claimed',
      'idx_inbox_state_created',
      'idx_inbox_consumption_pending',
      'idx_inbox_pull_pending',
      'idx_inbox_pull_busy',
      'queuebox_capture_state',
      'idx_outbox_dead_created',
      'idx_outbox_dead_topic_created',
      'idx_inbox_dead_source_created',
    ]) {
      expect(all).toContain(name);
    }
    expect(all).not.toContain('idx_outbox_topic');
    expect(all).not.toContain('idx_inbox_source ');
  });

  it('keep the capture-state DDL text of the PostgreSQL set (spec §3.4)', () => {
    const ddl = (sql: string) => /CREATE TABLE queuebox_capture_state[^;]*;/.exec(sql)?.[0];
    expect(ddl(migrations[6]!.sql)).toBe(ddl(postgresMigrations[6]!.sql));
  });

  it('have distinct checksums', () => {
    const sums = migrations.map((m) => flywayChecksum(m.sql));
    expect(new Set(sums).size).toBe(sums.length);
  });
});
