import { boundNames, readBatch } from '@queuebox/testing/tsql';
import { describe, expect, it } from 'vitest';
import { HARNESS_SQL } from '../test/sqlserver-target.js';
import { defaultSchema, inboxSql, type InboxSchema, type InboxStatements } from './index.js';

/** Every name mapped to another (spec §3.6), mixed case and a `$`, as QueueBox allows. */
const RENAMED: InboxSchema = Object.fromEntries(
  Object.keys(defaultSchema).map((key) => [key, `App_${key}$x`]),
) as unknown as InboxSchema;

const variants: [string, InboxStatements][] = [
  ['default names', inboxSql('sqlserver')],
  [
    'default names, strict aggregate order',
    inboxSql('sqlserver', {}, { strictAggregateOrder: true }),
  ],
  ['renamed', inboxSql('sqlserver', RENAMED)],
  [
    'renamed, strict aggregate order',
    inboxSql('sqlserver', RENAMED, { strictAggregateOrder: true }),
  ],
];
const cases = variants.flatMap(([variant, statements]) =>
  (Object.keys(statements) as (keyof InboxStatements)[]).map(
    (name) => [`${name} (${variant})`, statements[name]] as const,
  ),
);

/**
 * No SQL Server runs here, so this is what keeps a T-SQL error in the worker's statements out of
 * CI: every statement the worker sends on SQL Server (the five pull statements; the adapter's
 * BEGIN, COMMIT and ROLLBACK are TDS transaction requests, not SQL), on the default and on
 * renamed tables, with and without strict aggregate order, is read with node-sql-parser's
 * `transactsql` grammar under the reviewed list that @queuebox/sqlserver's parse test keeps
 * (@queuebox/testing/tsql), and binds exactly the positional parameters fromMssql gives it.
 */
describe('the SQL Server statements of the pull worker', () => {
  it.each(cases)('%s parses (or is reviewed)', (_name, statement) => {
    const readings = readBatch(statement.text);
    expect(readings.length).toBeGreaterThan(0);
  });

  it.each(cases)('%s binds exactly @p1..@pN, N being its parameter count', (_name, statement) => {
    const expected = statement.params.map((_p, i) => `p${i + 1}`);
    expect(boundNames(statement.text).sort()).toEqual([...expected].sort());
  });

  it('reviews only the claim constructs the parser lacks (the lock call, THROW, OUTPUT INTO)', () => {
    for (const [, statements] of variants) {
      const reviewed = new Set(
        readBatch(statements.claim.text).flatMap((r) => r.reviewed.map((e) => e.pattern.source)),
      );
      expect(reviewed.size).toBe(3);
      for (const name of ['renew', 'complete', 'retry', 'dead'] as const) {
        expect(readBatch(statements[name].text).every((r) => r.reviewed.length === 0)).toBe(true);
      }
    }
  });

  it('names the mapped table and columns, bracketed, and no default name is left', () => {
    const statements = inboxSql('sqlserver', RENAMED, { strictAggregateOrder: true });
    for (const name of Object.keys(statements) as (keyof InboxStatements)[]) {
      const text = statements[name].text.replace(/--.*$/gm, '');
      const bracketed = [...text.matchAll(/\[([^\]]+)\]/g)].map((m) => m[1]);
      // `[id]` is the claim's own table variable column (@claimed), not the inbox's.
      expect(bracketed.filter((n) => !n!.startsWith('App_') && n !== 'id')).toEqual([]);
    }
  });

  it('can fail: a broken statement and a stray parameter are caught', () => {
    const { complete } = inboxSql('sqlserver');
    expect(() => readBatch(complete.text.replace('SET', 'SETT'))).toThrow(/cannot read/);
    expect(boundNames(`${complete.text} AND [attempt] < @p3`)).toContain('p3');
  });
});

/** The contract harness's own T-SQL (what the SQL Server suite writes and reads rows with). */
describe('the SQL Server pull worker contract harness', () => {
  it.each(Object.entries(HARNESS_SQL))('%s parses and binds what it declares', (_n, statement) => {
    expect(readBatch(statement.text).length).toBeGreaterThan(0);
    expect(boundNames(statement.text).sort()).toEqual([...statement.params].sort());
  });
});
