import { describe, expect, it } from 'vitest';
import { createOutbox, enqueue, type OutboxMessage } from './index.js';
import { toRow } from './message.js';
import { pgArrayLiteral } from './pg-array.js';

const id = () => '00000000-0000-4000-8000-000000000000';
const row = (message: unknown) => toRow(message as OutboxMessage, id);

describe('what an application may write (spec §4.7)', () => {
  it('is enforced by the types', () => {
    const ok: OutboxMessage[] = [
      { topic: 't', payload: { a: 1 } },
      { topic: 't', payloadJson: '{"a":1}', key: null, state: 'pending' },
    ];
    // @ts-expect-error QueueBox writes attempt
    const attempt: OutboxMessage = { topic: 't', payload: 1, attempt: 1 };
    // @ts-expect-error only 'pending' may be written
    const state: OutboxMessage = { topic: 't', payload: 1, state: 'sent' };
    // @ts-expect-error one of payload and payloadJson
    const both: OutboxMessage = { topic: 't', payload: 1, payloadJson: '1' };
    // @ts-expect-error a payload is required
    const none: OutboxMessage = { topic: 't' };
    // @ts-expect-error sequence belongs to the database
    const sequence: OutboxMessage = { topic: 't', payload: 1, sequence: 1 };
    expect([ok, attempt, state, both, none, sequence]).toHaveLength(6);
  });

  it.each([
    [
      'attempt',
      { topic: 't', payload: 1, attempt: 0 },
      "sets 'attempt', which QueueBox writes itself",
    ],
    ['claimToken', { topic: 't', payload: 1, claimToken: 'x' }, "sets 'claimToken'"],
    ['lastError', { topic: 't', payload: 1, lastError: 'x' }, "sets 'lastError'"],
    ['sequence', { topic: 't', payload: 1, sequence: 1 }, "sets 'sequence'"],
    ['state', { topic: 't', payload: 1, state: 'sent' }, "sets state 'sent'"],
    ['an unknown field', { topic: 't', payload: 1, priority: 1 }, "unknown field 'priority'"],
    ['no topic', { payload: 1 }, 'needs a topic'],
    ['a blank topic', { topic: ' ', payload: 1 }, 'needs a topic'],
    ['a long topic', { topic: 'x'.repeat(256), payload: 1 }, 'topic longer than 255'],
    ['a long key', { topic: 't', key: 'é'.repeat(256), payload: 1 }, 'key longer than 255'],
    ['no payload', { topic: 't' }, 'needs a payload'],
    ['both payloads', { topic: 't', payload: 1, payloadJson: '1' }, 'both payload and payloadJson'],
    ['bad payloadJson', { topic: 't', payloadJson: '{nope' }, 'payloadJson that is not JSON text'],
    ['a BigInt', { topic: 't', payload: { n: 1n } }, 'JSON.stringify cannot serialize'],
    ['a function', { topic: 't', payload: () => 1 }, 'not a JSON value'],
    ['JSON text as payload', { topic: 't', payload: '{"a":1}' }, 'a string of JSON text'],
    ['null headers', { topic: 't', payload: 1, headers: null }, 'headers that are not an object'],
    ['a number header', { topic: 't', payload: 1, headers: { a: 1 } }, "header 'a'"],
    ['maxAttempts 0', { topic: 't', payload: 1, maxAttempts: 0 }, 'maxAttempts 0'],
    ['maxAttempts 1.5', { topic: 't', payload: 1, maxAttempts: 1.5 }, 'whole number'],
    ['a bad date', { topic: 't', payload: 1, scheduledAt: new Date('x') }, 'not a valid Date'],
    ['a date string', { topic: 't', payload: 1, scheduledAt: '2030-01-01' }, 'not a valid Date'],
    ['a bad id', { topic: 't', payload: 1, id: '42' }, 'not a UUID'],
  ])('refuses %s with a clear error', (_case, message, text) => {
    expect(() => row(message)).toThrow(text);
  });

  it("keeps the parser's or serializer's error as the cause", () => {
    const caught = (message: unknown): unknown => {
      try {
        row(message);
      } catch (error: unknown) {
        return error;
      }
      throw new Error('expected a throw');
    };
    const parse = caught({ topic: 't', payloadJson: '{nope' });
    expect(parse).toBeInstanceOf(TypeError);
    expect((parse as Error).cause).toBeInstanceOf(SyntaxError);
    const serialize = caught({ topic: 't', payload: { n: 1n } });
    expect(serialize).toBeInstanceOf(TypeError);
    expect((serialize as Error).cause).toBeInstanceOf(TypeError);
    expect(((serialize as Error).cause as Error).message).toMatch(/BigInt/);
  });

  it('accepts any JSON value and a string that is not JSON text', () => {
    for (const payload of [{ a: 1 }, [1], 'plain text', '{not json', 0, false, null]) {
      expect(row({ topic: 't', payload }).payload).toBe(JSON.stringify(payload));
    }
  });

  it('renders the values the insert binds', () => {
    const at = new Date('2030-01-02T03:04:05.678Z');
    expect(
      row({
        topic: 't',
        key: 'k',
        payloadJson: '{"n":12345678901234567890}',
        headers: { h: 'v' },
        aggregateType: 'a',
        scheduledAt: at,
        maxAttempts: 3,
      }),
    ).toEqual({
      id: id(),
      topic: 't',
      key: 'k',
      aggregateType: 'a',
      payload: '{"n":12345678901234567890}',
      headers: '{"h":"v"}',
      maxAttempts: '3',
      scheduledAt: '2030-01-02T03:04:05.678Z',
    });
  });

  it('names the message of a batch that is wrong', async () => {
    const outbox = createOutbox();
    const db = { query: () => Promise.resolve() };
    await expect(
      outbox.enqueueMany(db, [
        { topic: 't', payload: 1 },
        { topic: '', payload: 1 },
      ]),
    ).rejects.toThrow('Message 1 needs a topic');
  });
});

describe('the database handle', () => {
  it('refuses a pg Pool, whose query() would leave the transaction', async () => {
    const pool = { query: () => Promise.resolve(), connect: () => undefined, totalCount: 0 };
    await expect(enqueue(pool, { topic: 't', payload: 1 })).rejects.toThrow('got a pg Pool');
  });

  it('refuses something that is no database handle', async () => {
    await expect(enqueue({} as never, { topic: 't', payload: 1 })).rejects.toThrow(
      'enqueue needs a database handle',
    );
  });
});

describe('the schema', () => {
  it.each([
    [{ table: 'outbox; DROP TABLE users' }, "'table'"],
    [{ table: 'out"box' }, "'table'"],
    [{ columns: { topic: 'to pic' } }, "'columns.topic'"],
    [{ columns: { state: '1state' } }, "'columns.state'"],
    [{ columns: { colour: 'c' } }, "column key 'colour' is unknown"],
  ])('refuses %j with the rule of the configuration', (schema, text) => {
    expect(() => createOutbox({ schema: schema as never })).toThrow(text);
    if (!text.includes('unknown')) {
      expect(() => createOutbox({ schema: schema as never })).toThrow(
        '^[A-Za-z_][A-Za-z0-9_$]{0,62}$',
      );
    }
  });
});

describe('array literals', () => {
  it('quote and escape every value and write NULL for null', () => {
    expect(pgArrayLiteral(['a', null, 'say "hi"', 'back\\slash', '{,}'])).toBe(
      '{"a",NULL,"say \\"hi\\"","back\\\\slash","{,}"}',
    );
    expect(pgArrayLiteral([])).toBe('{}');
  });
});
