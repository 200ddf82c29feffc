import { describe, expect, it } from 'vitest';
import { SQL_IDENTIFIER_MAX_LENGTH, isSqlIdentifier } from './sql-identifier.js';

describe('the SQL identifier rule', () => {
  it('takes up to 63 characters and refuses a longer name, which PostgreSQL would cut', () => {
    expect(SQL_IDENTIFIER_MAX_LENGTH).toBe(63);
    expect(isSqlIdentifier(`t${'x'.repeat(62)}`)).toBe(true);
    expect(isSqlIdentifier(`t${'x'.repeat(63)}`)).toBe(false);
    expect(isSqlIdentifier(`outbox_${'y'.repeat(65)}`)).toBe(false);
  });

  it('takes letters, digits, _ and $ after a letter or _, and nothing that ends a quoted name', () => {
    for (const name of ['outbox', '_t', 'app$outbox', 'T_1'])
      expect(isSqlIdentifier(name)).toBe(true);
    for (const name of ['', '1t', '$t', 'a.b', 'a"b', 'a]b', 'a b', 'a-b', 'ö'])
      expect(isSqlIdentifier(name)).toBe(false);
  });
});
