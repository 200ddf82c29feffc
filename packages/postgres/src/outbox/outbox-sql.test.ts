import { describe, expect, it } from 'vitest';
import { renamedSchema } from '../../test/outbox-schema.js';
import { candidateWindow, claimStatement, passOverRegexes } from './outbox-claim.js';
import { completeStatement, releaseStatement, renewStatement } from './outbox-completion.js';
import { insertStatement } from './outbox-insert.js';
import { gaugesStatement, nextWakeStatement, reclaimStatement } from './outbox-maintenance.js';
import { distinctTopicsStatement, replayStatement } from './outbox-replay.js';
import {
  deleteBeyondCountStatement,
  deleteOlderThanStatement,
} from '../retention/retention-store.js';

const tables = renamedSchema.tables;

const statements: Record<string, string> = {
  claim: claimStatement(tables, 256),
  complete: completeStatement(tables),
  renew: renewStatement(tables),
  release: releaseStatement(tables),
  reclaim: reclaimStatement(tables),
  gauges: gaugesStatement(tables),
  nextWake: nextWakeStatement(tables),
  insert: insertStatement(tables),
  replay: replayStatement(tables, ['ids', 'topics', 'createdAfter', 'createdBefore']),
  distinctTopics: distinctTopicsStatement(tables),
  retentionOutbox: deleteOlderThanStatement(tables, 'outbox'),
  retentionInbox: deleteOlderThanStatement(tables, 'inbox'),
  retentionCount: deleteBeyondCountStatement(tables),
};

describe('outbox statements on renamed tables and columns', () => {
  // The integration suite runs them on a database where no default name exists; this pins the
  // same thing without one: every quoted identifier (other than a result alias, `AS "x"`) is a
  // configured name.
  const mapped = new Set([
    tables.outbox,
    tables.inbox,
    ...Object.values(tables.outboxColumns),
    ...Object.values(tables.inboxColumns),
  ]);

  it.each(Object.entries(statements))('%s quotes only configured names', (_name, text) => {
    const quoted = [...text.matchAll(/"[^"]*"/g)]
      .filter((m) => text.slice(Math.max(0, m.index - 3), m.index) !== 'AS ')
      .map((m) => m[0]);
    expect(quoted.length).toBeGreaterThan(0);
    expect(quoted.filter((name) => !mapped.has(name))).toEqual([]);
  });

  it('binds every value: the only literals are state names and fixed SQL constants', () => {
    for (const text of Object.values(statements)) {
      const literals = [...text.matchAll(/'([^']*)'/g)].map((m) => m[1]);
      for (const literal of literals) {
        expect([
          'pending',
          'processing',
          'sent',
          'retry',
          'dead',
          '',
          '{}',
          '1 millisecond',
        ]).toContain(literal);
      }
    }
  });
});

describe('candidate window', () => {
  it('is a power of two of at least the batch and a quarter, and at least 64', () => {
    expect([1, 51, 52, 100, 102, 103, 400, 410, 1000].map(candidateWindow)).toEqual([
      64, 64, 128, 128, 128, 256, 512, 1024, 2048,
    ]);
  });

  it('is written into the claim as a constant, the batch size as a parameter', () => {
    const text = claimStatement(tables, 128);
    expect(text).toMatch(/LIMIT 128\n/);
    expect(text).toMatch(/LIMIT \$3::integer/);
    expect(text).toMatch(/FOR UPDATE OF locked SKIP LOCKED/);
  });

  it('adds the pass-over test to the window only when asked, and nothing else', () => {
    const plain = claimStatement(tables, 128);
    expect(plain).not.toMatch(/\$4/);
    const lines = claimStatement(tables, 128, true).split('\n');
    const added = lines.filter((line) => line.includes('~ ANY($4::text[])'));
    expect(added).toHaveLength(1);
    expect(added[0]).toMatch(/^\s+AND NOT \(w\.\S+ ~ ANY\(\$4::text\[\]\)\)$/);
    expect(lines.filter((line) => line !== added[0]).join('\n')).toBe(plain);
  });

  it('turns each pass-over rule into one anchored expression with a lookahead of its exceptions', () => {
    expect(
      passOverRegexes({
        passOver: [
          { pattern: 'orders.**', unless: ['orders.keep', '*.x'] },
          { pattern: 'a+b', unless: [] },
        ],
      }),
    ).toEqual(['^(?!(?:orders\\.keep|[^.]+\\.x)$)(?:orders\\..*)$', '^(?:a\\+b)$']);
  });
});
