import { describe, expect, it } from 'vitest';
import { correlationIdOf } from './correlation-id.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('correlationIdOf', () => {
  it('keeps a well-formed id', () => {
    expect(correlationIdOf('req-42')).toBe('req-42');
  });

  it('creates a random UUID when the header is absent, empty or blank', () => {
    for (const received of [undefined, '', '   ', '\u0001\u0002']) {
      expect(correlationIdOf(received)).toMatch(UUID);
    }
    expect(correlationIdOf(undefined)).not.toBe(correlationIdOf(undefined));
    expect(correlationIdOf(undefined, () => 'fixed')).toBe('fixed');
  });

  it('removes C0, DEL and C1 control characters', () => {
    expect(correlationIdOf('a\u0000b\tc\nd\re\u007ff\u0085g\u009fh')).toBe('abcdefgh');
  });

  it('cuts to 128 characters, after removing control characters', () => {
    expect(correlationIdOf('x'.repeat(200))).toBe('x'.repeat(128));
    expect(correlationIdOf(`${'\u0001'.repeat(10)}${'y'.repeat(128)}`)).toBe('y'.repeat(128));
  });

  it('never ends on half a surrogate pair', () => {
    const id = correlationIdOf(`${'x'.repeat(127)}😀tail`);
    expect(id).toBe('x'.repeat(127));
  });
});
