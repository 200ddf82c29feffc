import { describe, expect, it } from 'vitest';
import { flywayLockKey } from './advisory-lock.js';

describe('flywayLockKey', () => {
  it('is "Flyway" packed into a long plus the Java hash of the quoted table name', () => {
    // 0x466C79776179 = "Flyway"; 2125624436 = "\"public\".\"flyway_schema_history\"".hashCode(),
    // computed with Java.
    expect(flywayLockKey('public', 'flyway_schema_history')).toBe(0x466c79776179n + 2125624436n);
  });

  it('differs per schema', () => {
    expect(flywayLockKey('a', 'flyway_schema_history')).not.toBe(
      flywayLockKey('b', 'flyway_schema_history'),
    );
  });
});
