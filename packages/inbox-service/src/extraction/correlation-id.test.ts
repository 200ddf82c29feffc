import { describe, expect, it } from 'vitest';
import { receivedCorrelationId } from './correlation-id.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('receivedCorrelationId', () => {
  it('keeps a well-formed id', () => {
    expect(receivedCorrelationId('req-42')).toBe('req-42');
  });

  it('creates a random UUID when the header is absent, empty or blank', () => {
    for (const received of [undefined, '', '   ', '\u0001\u0002']) {
      expect(receivedCorrelationId(received)).toMatch(UUID);
    }
    expect(receivedCorrelationId(undefined)).not.toBe(receivedCorrelationId(undefined));
    expect(receivedCorrelationId(undefined, () => 'fixed')).toBe('fixed');
  });

  it('removes C0, DEL and C1 control characters', () => {
    expect(receivedCorrelationId('a\u0000b\tc\nd\re\u007ff\u0085g\u009fh')).toBe('abcdefgh');
  });

  it('cuts to 128 characters, after removing control characters', () => {
    expect(receivedCorrelationId('x'.repeat(200))).toBe('x'.repeat(128));
    expect(receivedCorrelationId(`${'\u0001'.repeat(10)}${'y'.repeat(128)}`)).toBe('y'.repeat(128));
  });

  it('never ends on half a surrogate pair', () => {
    const id = receivedCorrelationId(`${'x'.repeat(127)}😀tail`);
    expect(id).toBe('x'.repeat(127));
  });
});
