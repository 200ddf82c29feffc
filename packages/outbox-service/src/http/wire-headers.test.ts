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
    ['€ 5%', '%E2%82%AC%205%25'],
    ['é and 订', '%C3%A9%20and%20%E8%AE%A2'],
    ['a\ud800', 'a%EF%BF%BD'],
  ])('percent-encodes %j as UTF-8: %s', (value, encoded) => {
    expect(wireValue(value)).toBe(encoded);
  });

  it('is undone by decodeURIComponent for every value it encodes', () => {
    for (const value of ['订单-1', 'x\r\ny', '50% 🚀 ok', 'é\u0001', '%E8%AE%A2']) {
      const encoded = wireValue(`${value}\u4e00`);
      expect(encoded).toMatch(/^[!-~]*$/);
      expect(decodeURIComponent(encoded)).toBe(`${value}\u4e00`);
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
