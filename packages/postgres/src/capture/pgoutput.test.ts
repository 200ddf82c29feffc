import { describe, expect, it } from 'vitest';
import { OutboxChangeDecoder, parseServerMessage, statusUpdate } from './pgoutput.js';
import { parseLsn } from './replication-stream.js';

const cstring = (text: string) => Buffer.concat([Buffer.from(text, 'utf8'), Buffer.from([0])]);
const int32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
};
const relation = (oid: number, schema: string, table: string) =>
  Buffer.concat([Buffer.from('R'), int32(oid), cstring(schema), cstring(table), Buffer.from([0])]);
const change = (type: 'I' | 'U' | 'D', oid: number) =>
  Buffer.concat([Buffer.from(type), int32(oid), Buffer.from('N')]);

describe('pgoutput decoding (protocol version 1)', () => {
  it('reports changes of the outbox table by kind, after its relation message', () => {
    const decoder = new OutboxChangeDecoder('public', 'outbox');
    expect(decoder.decode(relation(16384, 'public', 'outbox'))).toBeNull();
    expect(decoder.decode(change('I', 16384))).toBe('insert');
    expect(decoder.decode(change('U', 16384))).toBe('update');
    expect(decoder.decode(change('D', 16384))).toBe('delete');
  });

  it('ignores other tables, a same-named table of another schema, and transaction framing', () => {
    const decoder = new OutboxChangeDecoder('app', 'outbox');
    decoder.decode(relation(1, 'public', 'outbox'));
    decoder.decode(relation(2, 'app', 'orders'));
    expect(decoder.decode(change('I', 1))).toBeNull();
    expect(decoder.decode(change('I', 2))).toBeNull();
    for (const type of 'BCOYTM') expect(decoder.decode(Buffer.from(type))).toBeNull();
  });

  it('answers unreadable (a wake) for a relation never announced or an unknown message', () => {
    const decoder = new OutboxChangeDecoder('public', 'outbox');
    expect(decoder.decode(change('I', 7))).toBe('unreadable');
    expect(decoder.decode(Buffer.from('Z'))).toBe('unreadable');
    expect(decoder.decode(Buffer.from('I'))).toBe('unreadable');
  });

  it('follows a relation that is announced again under another name', () => {
    const decoder = new OutboxChangeDecoder('public', 'outbox');
    decoder.decode(relation(5, 'public', 'outbox'));
    decoder.decode(relation(5, 'public', 'outbox_old'));
    expect(decoder.decode(change('I', 5))).toBeNull();
  });
});

describe('replication protocol framing', () => {
  it('reads XLogData and keepalive messages', () => {
    const data = Buffer.alloc(26);
    data[0] = 0x77;
    data.writeBigUInt64BE(0x16b374d848n, 1);
    data[25] = 0x49;
    const parsed = parseServerMessage(data);
    expect(parsed).toEqual({ type: 'data', walStart: 0x16b374d848n, payload: Buffer.from('I') });
    const keepalive = Buffer.alloc(18);
    keepalive[0] = 0x6b;
    keepalive.writeBigUInt64BE(42n, 1);
    keepalive[17] = 1;
    expect(parseServerMessage(keepalive)).toEqual({
      type: 'keepalive',
      walEnd: 42n,
      replyRequested: true,
    });
    expect(parseServerMessage(Buffer.from('x'))).toEqual({ type: 'other' });
  });

  it('writes a status update confirming one position, with the clock since 2000-01-01', () => {
    const update = statusUpdate(0x10n, Date.UTC(2000, 0, 1, 0, 0, 1), true);
    expect(update).toHaveLength(34);
    expect(String.fromCharCode(update[0]!)).toBe('r');
    expect([1, 9, 17].map((at) => update.readBigUInt64BE(at))).toEqual([0x10n, 0x10n, 0x10n]);
    expect(update.readBigInt64BE(25)).toBe(1_000_000n);
    expect(update[33]).toBe(1);
  });

  it('parses LSN text', () => {
    expect(parseLsn('16/B374D848')).toBe(0x16b374d848n);
    expect(parseLsn('0/0')).toBe(0n);
  });
});
