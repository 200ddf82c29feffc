import { QueueBoxError, Secret, type Json } from '@queuebox/core';
import { describe, expect, it } from 'vitest';
import { fakeTransformer, httpSource, recordingLogger } from '@queuebox/testing';
import { KEY_EXPRESSION_LIMITS } from './attribute-chain.js';
import { compileHttpExtraction, type HttpExtractionResult } from './http-extraction.js';

const transformer = fakeTransformer({
  'data.object.id': (input) => (input as { data?: { object?: { id?: Json } } }).data?.object?.id,
  'type & "-" & id': (input) => {
    const body = input as { type?: string; id?: string };
    return body.type === undefined ? undefined : `${body.type}-${body.id ?? ''}`;
  },
  whole: () => 515725.0,
  object: () => ({ a: 1 }),
  blank: () => '   ',
  boom: () => {
    throw new Error('T2002: The right side of the "+" operator must evaluate to a number');
  },
  'secret-leak': () => {
    throw new Error('failed: password=hunter2');
  },
});

function message(body: Json, headers: Record<string, string> = {}) {
  const lower = new Map(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
  return {
    body,
    text: JSON.stringify(body),
    header: (name: string) => lower.get(name.toLowerCase()),
  };
}

/** A message received as this JSON text (numbers as the sender wrote them). */
function received(text: string) {
  return { body: JSON.parse(text) as Json, text, header: () => undefined };
}

function attributes(result: HttpExtractionResult) {
  if (result.kind !== 'extracted')
    throw new Error(`expected attributes, got ${JSON.stringify(result)}`);
  return result.attributes;
}

describe('HTTP extraction precedence', () => {
  const config = httpSource({
    idempotencyKeyHeader: 'Idempotency-Key',
    idempotencyKeyExpression: 'data.object.id',
    idempotencyKeyPath: ['$.id', '$.data.id'],
  });

  it('takes the header first, then the expression, then the paths in order', async () => {
    const extraction = compileHttpExtraction('stripe', config, {
      transformer,
      logger: recordingLogger(),
    });
    const body = {
      id: 'from-path',
      data: { id: 'from-second-path', object: { id: 'from-expression' } },
    };
    expect(
      attributes(await extraction.extract(message(body, { 'idempotency-key': ' from-header ' })))
        .idempotencyKey,
    ).toBe('from-header');
    expect(attributes(await extraction.extract(message(body))).idempotencyKey).toBe(
      'from-expression',
    );
    expect(
      attributes(await extraction.extract(message({ ...body, data: { id: 'second' } })))
        .idempotencyKey,
    ).toBe('from-path');
    expect(attributes(await extraction.extract(message({ data: { id: 7 } }))).idempotencyKey).toBe(
      '7',
    );
  });

  it('treats an empty header, a blank or non-scalar value as missing and moves on', async () => {
    const extraction = compileHttpExtraction('stripe', config, {
      transformer,
      logger: recordingLogger(),
    });
    const body = { id: { nested: true }, data: { id: '  ', object: { id: null } } };
    expect(await extraction.extract(message(body, { 'Idempotency-Key': '  ' }))).toEqual({
      kind: 'missing-key',
      tried: "header 'Idempotency-Key', expression 'data.object.id', path '$.id', path '$.data.id'",
    });
    expect(attributes(await extraction.extract(message({ id: true }))).idempotencyKey).toBe('true');
  });

  it('reads aggregate id and event type with the same precedence, each on its own', async () => {
    const extraction = compileHttpExtraction(
      'gh',
      httpSource({
        idempotencyKeyHeader: 'X-GitHub-Delivery',
        eventTypeHeader: 'X-GitHub-Event',
        eventTypePath: ['$.action'],
        aggregateIdExpression: 'type & "-" & id',
        aggregateIdPath: ['$.repository.id'],
      }),
      { transformer, logger: recordingLogger() },
    );
    const body = { action: 'opened', repository: { id: 1296269 }, type: 'repo', id: 'x' };
    expect(
      attributes(
        await extraction.extract(
          message(body, { 'x-github-delivery': 'd-1', 'x-github-event': 'push' }),
        ),
      ),
    ).toEqual({
      idempotencyKey: 'd-1',
      eventType: 'push',
      aggregateId: 'repo-x',
      publishTime: null,
    });
    expect(
      attributes(
        await extraction.extract(
          message(
            { action: 'opened', repository: { id: 1296269 } },
            { 'x-github-delivery': 'd-2' },
          ),
        ),
      ),
    ).toEqual({
      idempotencyKey: 'd-2',
      eventType: 'opened',
      aggregateId: '1296269',
      publishTime: null,
    });
    expect(
      attributes(await extraction.extract(message({}, { 'x-github-delivery': 'd-3' }))),
    ).toEqual({
      idempotencyKey: 'd-3',
      eventType: null,
      aggregateId: null,
      publishTime: null,
    });
  });

  it('reads a JSON integer by path with every digit, and other numbers in their JSON form', async () => {
    const extraction = compileHttpExtraction(
      'ids',
      httpSource({
        idempotencyKeyPath: ['$.id'],
        aggregateIdPath: ['$.data[-1].n'],
        eventTypePath: ['$.kind'],
      }),
      { transformer, logger: recordingLogger() },
    );
    const read = async (text: string) => attributes(await extraction.extract(received(text)));
    expect(await read('{"id": 9007199254740993, "data": [{"n": -12345678901234567890}]}')).toEqual({
      idempotencyKey: '9007199254740993',
      aggregateId: '-12345678901234567890',
      eventType: null,
      publishTime: null,
    });
    expect((await read('{"id": 9007199254740992}')).idempotencyKey).toBe('9007199254740992');
    expect((await read('{"id": 9007199254740991}')).idempotencyKey).toBe('9007199254740991');
    // JSON.parse keeps the last of two equal names; the exact read does too.
    expect(
      (await read('{"id": 12345678901234567891, "id": 12345678901234567892}')).idempotencyKey,
    ).toBe('12345678901234567892');
    expect((await read(`{"id": 1${'0'.repeat(30)}}`)).idempotencyKey).toBe(`1${'0'.repeat(30)}`);
    // Not an integer token: the JSON form of spec §7.2, as before.
    expect((await read('{"id": 1e30, "kind": 1.50}')).idempotencyKey).toBe('1e+30');
    expect((await read('{"id": 1e30, "kind": 1.50}')).eventType).toBe('1.5');
    expect((await read('{"id": 12345678901234567890.0}')).idempotencyKey).toBe(
      '12345678901234567000',
    );
    expect(await extraction.extract(received('{"id": 1.5e400}'))).toMatchObject({
      kind: 'missing-key',
    });
  });

  it('converts expression results: whole numbers lose the decimal point, objects and blanks give nothing', async () => {
    const run = async (expression: string) => {
      const extraction = compileHttpExtraction(
        's',
        httpSource({ idempotencyKeyExpression: expression, idempotencyKeyPath: ['$.fallback'] }),
        {
          transformer,
          logger: recordingLogger(),
        },
      );
      return attributes(await extraction.extract(message({ fallback: 'fb' }))).idempotencyKey;
    };
    expect(await run('whole')).toBe('515725');
    expect(await run('object')).toBe('fb');
    expect(await run('blank')).toBe('fb');
  });

  it('compiles key expressions with the fixed limits of 100 ms and depth 100', () => {
    const recording = fakeTransformer({ e: () => 'x' });
    compileHttpExtraction(
      's',
      httpSource({
        idempotencyKeyExpression: 'e',
        eventTypeExpression: 'e',
        aggregateIdExpression: 'e',
      }),
      {
        transformer: recording,
        logger: recordingLogger(),
      },
    );
    expect(recording.compiled).toHaveLength(3);
    for (const call of recording.compiled)
      expect(call.limits).toEqual({ timeoutMs: 100, maxDepth: 100 });
    expect(KEY_EXPRESSION_LIMITS).toEqual({ timeoutMs: 100, maxDepth: 100 });
  });

  it('turns a failing expression into no value and one WARN naming source and key, sanitized', async () => {
    const logger = recordingLogger();
    const extraction = compileHttpExtraction(
      'stripe',
      httpSource({
        idempotencyKeyExpression: 'boom',
        idempotencyKeyPath: ['$.id'],
        eventTypeExpression: 'secret-leak',
      }),
      { transformer, logger },
    );
    expect(attributes(await extraction.extract(message({ id: 'k' })))).toMatchObject({
      idempotencyKey: 'k',
      eventType: null,
    });
    const warns = logger.at('warn');
    expect(warns).toHaveLength(2);
    expect(warns[0]!.message).toBe(
      'The expression sources.stripe.idempotencyKeyExpression of source \'stripe\' failed, so it gives no value. Reason: T2002: The right side of the "+" operator must evaluate to a number',
    );
    expect(warns[1]!.message).toContain('sources.stripe.eventTypeExpression');
    expect(warns[1]!.message).not.toContain('hunter2');
  });

  it('evaluates key expressions on the body alone, with no variables bound', async () => {
    const recording = fakeTransformer({ e: () => 'x' });
    const extraction = compileHttpExtraction('s', httpSource({ idempotencyKeyExpression: 'e' }), {
      transformer: recording,
      logger: recordingLogger(),
    });
    await extraction.extract(message({ a: 1 }, { 'x-a': 'b' }));
    expect(recording.evaluations).toEqual([{ expression: 'e', input: { a: 1 }, bindings: {} }]);
  });
});

describe('HTTP extraction of the publish time', () => {
  const config = httpSource({
    idempotencyKeyPath: ['$.id'],
    initialDelayMs: 60_000,
    scheduledAtHeader: 'X-Published-At',
    scheduledAtPath: ['$.created', '$.meta.time'],
  });

  it('is read only when a publish-time header or path is configured', async () => {
    const extraction = compileHttpExtraction('s', httpSource({ idempotencyKeyPath: ['$.id'] }), {
      transformer,
      logger: recordingLogger(),
    });
    expect(
      attributes(
        await extraction.extract(
          message({ id: 'k', created: 1700000000 }, { 'x-published-at': '1700000000' }),
        ),
      ).publishTime,
    ).toBeNull();
  });

  it('takes the header, then the paths, then nothing (receipt)', async () => {
    const extraction = compileHttpExtraction('s', config, {
      transformer,
      logger: recordingLogger(),
    });
    const time = async (body: Json, headers: Record<string, string> = {}) =>
      attributes(await extraction.extract(message(body, headers))).publishTime?.toISOString() ??
      null;
    expect(await time({ id: 'k', created: 1 }, { 'X-Published-At': '1700000000' })).toBe(
      '2023-11-14T22:13:20.000Z',
    );
    expect(await time({ id: 'k', created: 1700000000123 })).toBe('2023-11-14T22:13:20.123Z');
    expect(await time({ id: 'k', meta: { time: '2026-09-21T12:00:00+02:00' } })).toBe(
      '2026-09-21T10:00:00.000Z',
    );
    expect(await time({ id: 'k' })).toBeNull();
  });

  it('skips a value that is no time with one WARN each, and tries the next place', async () => {
    const logger = recordingLogger();
    const extraction = compileHttpExtraction('orders', config, { transformer, logger });
    const result = attributes(
      await extraction.extract(
        message(
          { id: 'k', created: 'yesterday', meta: { time: 1700000000 } },
          { 'x-published-at': '-5' },
        ),
      ),
    );
    expect(result.publishTime?.toISOString()).toBe('2023-11-14T22:13:20.000Z');
    expect(logger.at('warn').map((l) => l.message)).toEqual([
      "The publish time '-5' of a message of source 'orders' is not a time, so it is ignored.",
      "The publish time 'yesterday' of a message of source 'orders' is not a time, so it is ignored.",
    ]);
  });
});

describe('HTTP extraction at start', () => {
  const compile = (overrides: Parameters<typeof httpSource>[0]) =>
    compileHttpExtraction('stripe', httpSource(overrides), {
      transformer,
      logger: recordingLogger(),
    });
  const failure = (overrides: Parameters<typeof httpSource>[0]) => {
    try {
      compile(overrides);
    } catch (error: unknown) {
      expect(error).toBeInstanceOf(QueueBoxError);
      expect((error as QueueBoxError).code).toBe('config_invalid');
      return (error as QueueBoxError).message;
    }
    throw new Error('no error');
  };

  it('stops on an expression that does not compile, naming the key path', () => {
    expect(failure({ idempotencyKeyExpression: 'data.(' })).toMatch(
      /^sources\.stripe\.idempotencyKeyExpression: the JSONata expression does not compile: /,
    );
    expect(failure({ idempotencyKeyPath: ['$.id'], eventTypeExpression: '$$$' })).toMatch(
      /^sources\.stripe\.eventTypeExpression: /,
    );
  });

  it('stops on an indefinite or invalid JSONPath, naming the key path and the index in a list', () => {
    expect(failure({ idempotencyKeyPath: ['$..orderId'] })).toMatch(
      /^sources\.stripe\.idempotencyKeyPath: '\$\.\.orderId' is not a definite JSONPath/,
    );
    expect(failure({ idempotencyKeyPath: ['$.id', '$.items[*].id'] })).toMatch(
      /^sources\.stripe\.idempotencyKeyPath\[1\]: /,
    );
    expect(failure({ idempotencyKeyPath: ['$.id'], aggregateIdPath: ['$.a['] })).toMatch(
      /^sources\.stripe\.aggregateIdPath: '\$\.a\[' is not a valid JSONPath/,
    );
    expect(failure({ idempotencyKeyPath: ['$.id'], scheduledAtPath: ['$.*'] })).toMatch(
      /^sources\.stripe\.scheduledAtPath: /,
    );
  });

  it('stops when the source has no idempotency key at all', () => {
    expect(failure({})).toContain(
      'idempotencyKeyPath, idempotencyKeyHeader or idempotencyKeyExpression',
    );
  });

  it('stops when a key header names a header that is never stored', () => {
    expect(failure({ idempotencyKeyHeader: 'authorization' })).toMatch(
      /^sources\.stripe\.idempotencyKeyHeader: 'authorization'/,
    );
    expect(failure({ idempotencyKeyPath: ['$.id'], eventTypeHeader: 'Cookie' })).toMatch(
      /eventTypeHeader/,
    );
    expect(
      failure({
        idempotencyKeyPath: ['$.id'],
        scheduledAtHeader: 'x-api-key',
        auth: { type: 'api-key', key: new Secret('k'), headerName: 'X-API-Key' },
      }),
    ).toMatch(/scheduledAtHeader/);
  });

  it('compiles every expression once, not per message', async () => {
    const recording = fakeTransformer({ e: () => 'x' });
    const extraction = compileHttpExtraction('s', httpSource({ idempotencyKeyExpression: 'e' }), {
      transformer: recording,
      logger: recordingLogger(),
    });
    for (let i = 0; i < 3; i++) await extraction.extract(message({}));
    expect(recording.compiled).toHaveLength(1);
    expect(recording.evaluations).toHaveLength(3);
  });
});
