import { DEFAULT_INBOX_COLUMNS, DEFAULT_OUTBOX_COLUMNS, type DatabaseConfig } from '@queuebox/core';
import { describe, expect, it } from 'vitest';
import { tableNamesFrom } from '../schema/table-names.js';
import { likePattern, listStatement } from './console-sql.js';

const tables = tableNamesFrom({
  outboxTableName: 'outbox',
  inboxTableName: 'inbox',
  columnMapping: { outbox: DEFAULT_OUTBOX_COLUMNS, inbox: DEFAULT_INBOX_COLUMNS },
} as unknown as DatabaseConfig);
const NONE = { ids: null, states: null, groups: null, from: null, to: null, q: null };

describe('the console statements on PostgreSQL', () => {
  it('binds one state and one topic as equalities, so a partial index on state = dead matches', () => {
    const { text, params } = listStatement(
      tables,
      'outbox',
      { ...NONE, states: ['dead'], groups: ['order.created'] },
      51,
      null,
    );
    expect(text).toContain('"state" = $1');
    expect(text).toContain('"topic" = $2');
    expect(text).not.toContain('ANY');
    expect(params).toEqual(['dead', 'order.created', 51]);
  });

  it('orders by the table columns, not the text alias of id, and continues after a position', () => {
    const after = {
      createdAt: '2026-01-01 00:00:00.5+00',
      id: '7d0c8f5e-0000-4000-8000-000000000001',
    };
    const { text, params } = listStatement(
      tables,
      'inbox',
      { ...NONE, states: ['dead', 'processed'] },
      51,
      after,
    );
    expect(text).toContain('ORDER BY t."created_at" DESC, t."id" DESC');
    expect(text).toContain('("created_at", "id") < ($2::timestamptz, $3::uuid)');
    expect(params).toEqual([['dead', 'processed'], after.createdAt, after.id, 51]);
  });

  it('searches last_error for the literal text, wildcards included', () => {
    expect(likePattern('50%_off\\')).toBe('%50\\%\\_off\\\\%');
  });
});
