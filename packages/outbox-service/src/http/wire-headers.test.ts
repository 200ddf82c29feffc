import { describe, expect, it } from 'vitest';
import { headerText, wireValue } from './wire-headers.js';

describe('header values on the wire', () => {
  it.each(['plain', 'café ü ÿ', 'tab\there', '', '  spaced  ', '100% sure'])(
    'sends %j as it is (tab, printable ASCII and Latin-1)',
    (value) => {
      expect(wireValue(value)).toBe(value);
    },
  );

  it.each([
    ['订单-1', '%E8%AE%A2%E5%8D%95-1'],
    ['a\r\nb', 'a%0D%0Ab'],
    ['a\u0000b', 'a%00b'],
    ['del\u007f', 'del%7F'],
    ['€ 5% + x', '%E2%82%AC%205%25%20%2B%20x'],
    ['é and 订', '%C3%A9%20and%20%E8%AE%A2'],
    ['a\ud800', 'a%EF%BF%BD'],
  ])('percent-encodes %j as UTF-8: %s', (value, encoded) => {
    expect(wireValue(value)).toBe(encoded);
  });

  it('writes what encodeURIComponent writes, which every URL decoder undoes', () => {
    const samples = [
      '订单-1',
      'x\r\ny',
      '50% 🚀 ok',
      'é\u0001',
      '%E8%AE%A2',
      "a+b=c&d/e?f#g!*'()~",
    ];
    for (const value of samples.map((sample) => `${sample}\u4e00`)) {
      const encoded = wireValue(value);
      expect(encoded).toBe(encodeURIComponent(value));
      expect(decodeURIComponent(encoded)).toBe(value);
      // A form decoder (Java's URLDecoder, say) reads `+` as a space: none is left to read.
      expect(encoded).not.toContain('+');
    }
  });

  it('turns a JSON value that is not a string into its JSON text', () => {
    expect([headerText('x'), headerText(1), headerText(false), headerText(null)]).toEqual([
      'x',
      '1',
      'false',
      'null',
    ]);
    expect(headerText({ a: [1] })).toBe('{"a":[1]}');
    expect(headerText(undefined)).toBe('');
  });
});
