import type { Migration } from './migration.js';

/**
 * Flyway versions compare part by part as numbers ("10" after "9", "1.1" after "1"); trailing
 * zero parts do not count ("1.0" equals "1"). Histories written by the reference hold plain
 * integers, but reading them with Flyway's rule keeps us right if one ever does not.
 */
export function compareVersions(a: string, b: string): number {
  const left = parts(a);
  const right = parts(b);
  const length = Math.max(left.length, right.length);
  for (let i = 0; i < length; i++) {
    const x = left[i] ?? 0n;
    const y = right[i] ?? 0n;
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

export function sameVersion(a: string, b: string): boolean {
  return compareVersions(a, b) === 0;
}

function parts(version: string): bigint[] {
  return version.split(/[._]/).map((part) => (/^\d+$/.test(part) ? BigInt(part) : 0n));
}

/** A dialect's bundled migration files, in Flyway's version order, frozen. */
export function migrationSet(files: Readonly<Record<string, Migration>>): readonly Migration[] {
  return Object.freeze(Object.values(files).sort((a, b) => compareVersions(a.version, b.version)));
}
