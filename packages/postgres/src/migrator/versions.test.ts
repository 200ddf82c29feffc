import { describe, expect, it } from 'vitest';
import { migrations } from '../migrations/index.js';
import { compareVersions, pendingMigrations, type HistoryRow } from '@queuebox/core';

describe('compareVersions', () => {
  it('compares numerically, part by part', () => {
    expect(compareVersions('9', '10')).toBe(-1);
    expect(compareVersions('11', '2')).toBe(1);
    expect(compareVersions('1.1', '1')).toBe(1);
    expect(compareVersions('1.0', '1')).toBe(0);
    expect(compareVersions('0', '1')).toBe(-1);
  });
});

const row = (
  installedRank: number,
  version: string | null,
  type = 'SQL',
  success = true,
): HistoryRow => ({
  installedRank,
  version,
  type,
  success,
});
const versions = (list: { version: string }[]) => list.map((m) => m.version);
/** The bundled versions after V11, the reference's last: the same in every expectation below. */
const ADDED = versions(migrations.slice(11));
/** The reference's versions, V1..V11. */
const REFERENCE = Array.from({ length: 11 }, (_, i) => String(i + 1));

describe('pendingMigrations', () => {
  it('is everything on an empty history', () => {
    expect(versions(pendingMigrations(migrations, []))).toEqual([...REFERENCE, ...ADDED]);
  });

  it('skips versions with a successful row, whatever their checksum', () => {
    const history = [1, 2, 3, 4, 5, 6, 7, 8, 9].map((v) => row(v, String(v)));
    expect(versions(pendingMigrations(migrations, history))).toEqual(['10', '11', ...ADDED]);
  });

  it('runs a version again when its only row failed', () => {
    const history = [row(1, '1'), row(2, '2', 'SQL', false)];
    expect(versions(pendingMigrations(migrations, history))[0]).toBe('2');
  });

  it('applies nothing at or below a baseline', () => {
    expect(versions(pendingMigrations(migrations, [row(1, '6', 'BASELINE')]))).toEqual([
      ...REFERENCE.slice(6),
      ...ADDED,
    ]);
    expect(versions(pendingMigrations(migrations, [row(1, '0', 'BASELINE')]))).toHaveLength(
      11 + ADDED.length,
    );
  });

  it('stops at a target', () => {
    expect(versions(pendingMigrations(migrations, [], '10'))).toHaveLength(10);
  });

  it('ignores rows without a version and versions it does not bundle', () => {
    const history = [row(1, null, 'SCHEMA'), row(2, '99')];
    expect(versions(pendingMigrations(migrations, history))).toHaveLength(11 + ADDED.length);
  });
});
