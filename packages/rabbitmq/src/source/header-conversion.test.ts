import { describe, expect, it } from 'vitest';
import { convertHeaders, headerText, instantText } from './header-conversion.js';

describe('AMQP header conversion', () => {
  it('turns every AMQP value type into the text the inbox stores', () => {
    expect(
      convertHeaders({
        text: 'café',
        int: 42,
        negative: -7,
        double: 1.5,
        yes: true,
        no: false,
        void: null,
        table: { a: 1, b: 'x', nested: { c: [1, 'y', null] } },
        array: [1, 'two', true],
        utf8: Buffer.from('订单-1', 'utf8'),
        binary: Buffer.from([0xff, 0x00, 0xfe]),
        stamp: { '!': 'timestamp', value: 1_700_000_000 },
        decimal: { '!': 'decimal', value: { places: 2, digits: 12345 } },
        small: { '!': 'decimal', value: { places: 3, digits: 5 } },
      }),
    ).toEqual({
      text: 'café',
      int: '42',
      negative: '-7',
      double: '1.5',
      yes: 'true',
      no: 'false',
      table: '{"a":1,"b":"x","nested":{"c":[1,"y",null]}}',
      array: '[1,"two",true]',
      utf8: '订单-1',
      binary: 'base64:/wD+',
      stamp: '2023-11-14T22:13:20Z',
      decimal: '123.45',
      small: '0.005',
    });
  });

  it('converts values inside tables and arrays the same way', () => {
    expect(
      headerText({
        bytes: Buffer.from([0xff]),
        at: { '!': 'timestamp', value: 0 },
        ok: Buffer.from('hi'),
      }),
    ).toBe('{"bytes":"base64:/w==","at":"1970-01-01T00:00:00Z","ok":"hi"}');
  });

  it('keeps a header named __proto__ as data and tolerates no headers', () => {
    const converted = convertHeaders(JSON.parse('{"__proto__": "x"}') as Record<string, unknown>);
    expect(Object.getPrototypeOf(converted)).toBe(Object.prototype);
    expect(Object.keys(converted)).toEqual(['__proto__']);
    expect(convertHeaders(undefined)).toEqual({});
  });

  it('prints an instant with milliseconds only when it has some', () => {
    expect(instantText(1.5)).toBe('1970-01-01T00:00:01.500Z');
    expect(instantText(86_400)).toBe('1970-01-02T00:00:00Z');
  });
});
