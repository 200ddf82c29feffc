import { describe, expect, it } from 'vitest';
import type { KafkaMessage } from '../kafkajs.js';
import { bytesText, convertHeaders, recordDelivery } from './record-delivery.js';

/** A record batch entry as kafkajs hands it over. */
const record = (
  overrides: { key?: Buffer | null; value?: Buffer | null; timestamp?: string } = {},
): KafkaMessage => ({
  key: null,
  value: Buffer.from('{"id":1}'),
  timestamp: '1700000000000',
  attributes: 0,
  offset: '0',
  headers: {},
  ...overrides,
});

describe('recordDelivery', () => {
  it('hands over the value byte for byte and the record timestamp as the publish time', () => {
    const value = Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x7d]);
    const delivery = recordDelivery(record({ value }));
    expect(Buffer.from(delivery.body).equals(value)).toBe(true);
    expect(delivery.fallbacks).toEqual({ publishTime: new Date(1_700_000_000_000) });
  });

  it('uses a non-blank record key for both the idempotency key and the aggregate id fallbacks', () => {
    expect(recordDelivery(record({ key: Buffer.from('order-7') })).fallbacks).toMatchObject({
      idempotencyKey: 'order-7',
      aggregateId: 'order-7',
    });
    for (const key of [null, Buffer.from(''), Buffer.from('  ')]) {
      const { fallbacks } = recordDelivery(record({ key }));
      expect(fallbacks.idempotencyKey).toBeUndefined();
      expect(fallbacks.aggregateId).toBeUndefined();
    }
  });

  it('turns a tombstone into an empty body and ignores a timestamp that is not a time', () => {
    const delivery = recordDelivery(record({ value: null, timestamp: '-1' }));
    expect(delivery.body).toHaveLength(0);
    expect(delivery.fallbacks.publishTime).toBeUndefined();
  });
});

describe('convertHeaders', () => {
  it('gives UTF-8 values as text, other bytes as base64:, the last of a repeated name', () => {
    expect(
      convertHeaders({
        text: Buffer.from('café'),
        bytes: Buffer.from([0xc3, 0x28]),
        repeated: [Buffer.from('first'), Buffer.from('last')],
        plain: 'already text',
        empty: Buffer.from(''),
        none: undefined,
      }),
    ).toEqual({
      text: 'café',
      bytes: 'base64:wyg=',
      repeated: 'last',
      plain: 'already text',
      empty: '',
    });
    expect(convertHeaders(undefined)).toEqual({});
  });

  it('keeps a header named __proto__ as data', () => {
    const headers = convertHeaders(JSON.parse('{"__proto__": "x"}') as never);
    expect(Object.getPrototypeOf(headers)).toBe(Object.prototype);
    expect(Object.keys(headers)).toEqual(['__proto__']);
  });

  it('decodes a slice of a larger buffer by its own bytes', () => {
    const pool = Buffer.from([0xff, 0x61, 0x62, 0xff]);
    expect(bytesText(pool.subarray(1, 3))).toBe('ab');
    expect(bytesText(pool.subarray(0, 2))).toBe('base64:/2E=');
  });
});
