import { describe, expect, it } from 'vitest';
import { QueueBoxError } from '@queuebox/core';
import { createJsonataTransformer } from './jsonata-transformer.js';

const limits = { timeoutMs: 100, maxDepth: 100 };

async function run(expression: string, input: unknown = {}, bindings = {}, lim = limits) {
  const transformer = createJsonataTransformer();
  return transformer.compile(expression, lim).evaluate(input as never, bindings);
}

describe('JSONata result conversion', () => {
  it('turns no result into JSON null', async () => {
    expect(await run('missing.field', { a: 1 })).toEqual({ ok: true, value: null });
    expect(await run('null')).toEqual({ ok: true, value: null });
  });

  it('keeps primitives', async () => {
    expect(await run('"text"')).toEqual({ ok: true, value: 'text' });
    expect(await run('1.5 * 2')).toEqual({ ok: true, value: 3 });
    expect(await run('true and false')).toEqual({ ok: true, value: false });
  });

  it('turns jsonata sequences into plain arrays without internal properties', async () => {
    const outcome = await run('items.sku', { items: [{ sku: 'a' }, { sku: 'b' }] });
    expect(outcome).toEqual({ ok: true, value: ['a', 'b'] });
    if (!outcome.ok) throw new Error('expected success');
    expect(Object.keys(outcome.value as object)).toEqual(['0', '1']);
    expect(Object.getPrototypeOf(outcome.value)).toBe(Array.prototype);
  });

  it('strips flags from nested arrays and keeps a singleton array marked with []', async () => {
    const outcome = await run('{"skus": items[].sku, "nested": [[1, 2], [3]]}', {
      items: [{ sku: 'a' }],
    });
    expect(outcome).toEqual({ ok: true, value: { skus: ['a'], nested: [[1, 2], [3]] } });
    if (!outcome.ok) throw new Error('expected success');
    const skus = (outcome.value as { skus: unknown[] }).skus;
    expect(Object.keys(skus)).toEqual(['0']);
  });

  it('maps objects and drops keys whose value is absent', async () => {
    expect(await run('{"id": id, "gone": nothing}', { id: 7 })).toEqual({
      ok: true,
      value: { id: 7 },
    });
  });

  it('keeps an input array as an array', async () => {
    expect(await run('$', [1, 2])).toEqual({ ok: true, value: [1, 2] });
  });

  it('keeps a __proto__ key as data', async () => {
    const input = JSON.parse('{"__proto__": {"polluted": true}, "a": 1}') as unknown;
    const outcome = await run('$', input);
    if (!outcome.ok) throw new Error('expected success');
    expect(Object.hasOwn(outcome.value as object, '__proto__')).toBe(true);
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
    expect(JSON.stringify(outcome.value)).toBe('{"__proto__":{"polluted":true},"a":1}');
  });

  it('refuses a function result, naming where it sits', async () => {
    expect(await run('function($x) { $x }')).toEqual({
      ok: false,
      reason: 'The transform result at $ is a function, which is not JSON',
    });
    expect(await run('{"f": $uppercase}')).toEqual({
      ok: false,
      reason: 'The transform result at $.f is a function, which is not JSON',
    });
  });

  it('reports an evaluation error with its position', async () => {
    const outcome = await run('1 + "a"');
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.reason).toBe(
      'The right side of the "+" operator must evaluate to a number (position 3)',
    );
  });
});

describe('JSONata bindings', () => {
  it('binds variables by name', async () => {
    const outcome = await run(
      '{"id": $messageId, "topic": $topic, "attempt": $attempt, "at": $timestamp}',
      {},
      {
        messageId: 'm-1',
        topic: 'orders.created',
        attempt: 0,
        timestamp: '2025-01-02T03:04:05.678Z',
      },
    );
    expect(outcome).toEqual({
      ok: true,
      value: { id: 'm-1', topic: 'orders.created', attempt: 0, at: '2025-01-02T03:04:05.678Z' },
    });
  });

  it('does not leak the guard into what an expression can see', async () => {
    expect(await run('$__queuebox_guard')).toEqual({ ok: true, value: {} });
  });
});

describe('JSONata compile', () => {
  it('throws config_invalid with the reason and position', () => {
    const transformer = createJsonataTransformer();
    let thrown: unknown;
    try {
      transformer.compile('((', limits);
    } catch (error: unknown) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(QueueBoxError);
    expect((thrown as QueueBoxError).code).toBe('config_invalid');
    expect((thrown as QueueBoxError).message).toBe(
      'Expected ")" before end of expression (position 2)',
    );
  });

  it('refuses a blank expression and non-positive limits', () => {
    const transformer = createJsonataTransformer();
    expect(() => transformer.compile('  ', limits)).toThrow('The expression is blank');
    expect(() => transformer.compile('$', { timeoutMs: 0, maxDepth: 100 })).toThrow(
      'The transform timeoutMs must be > 0, got 0',
    );
  });
});

/** CPU time of this process since `since`, in ms: unlike wall time, a busy machine does not stretch it. */
const cpuMs = (since: NodeJS.CpuUsage): number => {
  const { user, system } = process.cpuUsage(since);
  return (user + system) / 1000;
};

describe('JSONata limits', () => {
  it('stops an infinite loop after about timeoutMs while timers keep firing', async () => {
    const transformer = createJsonataTransformer();
    // Tail recursion: jsonata turns it into a loop, so only the timeout can stop it.
    const compiled = transformer.compile('($f := function($x) { $f($x + 1) }; $f(0))', {
      timeoutMs: 200,
      maxDepth: 100,
    });
    // Wall time only bounds from below here: on a loaded machine the process may wait for a core
    // far longer than it computes. CPU time is what a runaway evaluation would keep burning.
    let finished = false;
    let timerFiredBeforeTheEnd: boolean | null = null;
    const started = performance.now();
    const cpu = process.cpuUsage();
    setTimeout(() => {
      timerFiredBeforeTheEnd = !finished;
    }, 20);
    const outcome = await compiled.evaluate({}, {});
    finished = true;
    const elapsed = performance.now() - started;

    expect(outcome).toEqual({
      ok: false,
      reason: 'Expression evaluation timeout after 200 ms: Check for infinite loop.',
    });
    expect(elapsed).toBeGreaterThanOrEqual(200);
    expect(cpuMs(cpu)).toBeLessThan(600);
    // The timer ran while the expression was still busy: the event loop was never blocked.
    // Without the guard's yields it could only fire after the failure.
    expect(timerFiredBeforeTheEnd).toBe(true);
  });

  it('stops a huge $reduce after about timeoutMs', async () => {
    // Run to the end, this costs about two seconds of CPU; stopped at 50 ms it costs a fraction.
    const cpu = process.cpuUsage();
    const outcome = await run(
      '$reduce([1..1000000], function($a, $b) { $a + $b })',
      {},
      {},
      {
        timeoutMs: 50,
        maxDepth: 100,
      },
    );
    expect(outcome).toEqual({
      ok: false,
      reason: 'Expression evaluation timeout after 50 ms: Check for infinite loop.',
    });
    expect(cpuMs(cpu)).toBeLessThan(400);
  });

  it('stops runaway recursion at maxDepth', async () => {
    const outcome = await run('($f := function($x) { 1 + $f($x + 1) }; $f(0))');
    expect(outcome).toEqual({
      ok: false,
      reason:
        'Stack overflow error: the evaluation went deeper than maxDepth 100. ' +
        'Check for non-terminating recursive function. Consider rewriting as tail-recursive.',
    });
  });

  it('lets bounded recursion below maxDepth finish', async () => {
    const factorial = '($f := function($n) { $n <= 1 ? 1 : $n * $f($n - 1) }; $f(5))';
    expect(await run(factorial)).toEqual({ ok: true, value: 120 });
    expect((await run(factorial, {}, {}, { timeoutMs: 100, maxDepth: 10 })).ok).toBe(false);
  });

  it('keeps the limits of concurrent evaluations of one cached expression apart', async () => {
    const transformer = createJsonataTransformer();
    const loop = '($f := function($x) { $x > 2000 ? $x : $f($x + 1) }; $f(0))';
    const tight = transformer.compile(loop, { timeoutMs: 1, maxDepth: 100 });
    const roomy = transformer.compile(loop, { timeoutMs: 5000, maxDepth: 100 });
    const [a, b] = await Promise.all([roomy.evaluate({}, {}), tight.evaluate({}, {})]);
    expect(a).toEqual({ ok: true, value: 2001 });
    expect(b.ok).toBe(false);
    expect(transformer.cacheStats()).toMatchObject({ size: 1, misses: 1, hits: 1 });
  });
});

describe('JSONata expression cache', () => {
  it('compiles an expression once and reuses it', async () => {
    const transformer = createJsonataTransformer();
    const a = transformer.compile('$.a', limits);
    const b = transformer.compile('$.a', { timeoutMs: 5, maxDepth: 5 });
    expect(transformer.cacheStats()).toEqual({ size: 1, hits: 1, misses: 1 });
    expect(await a.evaluate({ a: 1 }, {})).toEqual({ ok: true, value: 1 });
    expect(await b.evaluate({ a: 2 }, {})).toEqual({ ok: true, value: 2 });
  });

  it('evicts the least recently used expression beyond its capacity', () => {
    const transformer = createJsonataTransformer({ cacheSize: 2 });
    transformer.compile('a', limits);
    transformer.compile('b', limits);
    transformer.compile('a', limits); // a is now the most recent
    transformer.compile('c', limits); // evicts b
    expect(transformer.cacheStats()).toEqual({ size: 2, hits: 1, misses: 3 });
    transformer.compile('a', limits);
    expect(transformer.cacheStats().hits).toBe(2);
    transformer.compile('b', limits);
    expect(transformer.cacheStats().misses).toBe(4);
  });

  it('holds 1000 expressions by default', () => {
    const transformer = createJsonataTransformer();
    for (let i = 0; i < 1001; i++) transformer.compile(`${i}`, limits);
    expect(transformer.cacheStats().size).toBe(1000);
  });

  it('does not cache an expression that fails to compile', () => {
    const transformer = createJsonataTransformer();
    expect(() => transformer.compile('((', limits)).toThrow();
    expect(transformer.cacheStats().size).toBe(0);
  });
});
