/**
 * The ingest path with the real JSONata engine of outbox-service (what the app injects), where
 * the fake cannot speak for it: number formatting, failures, the evaluation limits of key
 * expressions, and the source-stage variables as an operator's expression reads them.
 */
import { Secret } from '@queuebox/core';
import { createJsonataTransformer } from '@queuebox/outbox-service';
import { Hono } from 'hono';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { compileHttpExtraction } from '../extraction/http-extraction.js';
import { inboxRoutes } from '../http/inbox-routes.js';
import { httpSource, inMemoryInboxStore, recordingLogger } from '@queuebox/testing';

describe('ingest with the real JSONata engine', () => {
  const engine = () => createJsonataTransformer();
  const message = (body: unknown, headers: Record<string, string> = {}) => {
    const lower = new Map(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
    return {
      body: body as never,
      text: JSON.stringify(body),
      header: (name: string) => lower.get(name.toLowerCase()),
    };
  };

  it('formats expression results: whole numbers lose the decimal point, text is trimmed', async () => {
    const run = async (expression: string, body: unknown) => {
      const extraction = compileHttpExtraction(
        's',
        httpSource({ idempotencyKeyExpression: expression, idempotencyKeyPath: ['$.fallback'] }),
        { transformer: engine(), logger: recordingLogger() },
      );
      const result = await extraction.extract(message(body));
      return result.kind === 'extracted' ? result.attributes.idempotencyKey : null;
    };
    expect(await run('amount * 1.0', { amount: 515725 })).toBe('515725');
    expect(await run('$number("515725.0")', {})).toBe('515725');
    expect(await run('amount / 2', { amount: 3 })).toBe('1.5');
    expect(await run('data.id & ":" & type', { data: { id: 'a' }, type: 'b' })).toBe('a:b');
    expect(await run('"  padded  "', {})).toBe('padded');
    expect(await run('flag', { flag: false })).toBe('false');
    // Nothing found, an object, an array, null: the path is tried next.
    expect(await run('missing', { fallback: 'fb' })).toBe('fb');
    expect(await run('data', { data: { id: 1 }, fallback: 'fb' })).toBe('fb');
    expect(await run('[1,2]', { fallback: 'fb' })).toBe('fb');
    expect(await run('null', { fallback: 'fb' })).toBe('fb');
  });

  it('turns an evaluation error and a runaway expression into no value and one WARN each', async () => {
    const logger = recordingLogger();
    const extraction = compileHttpExtraction(
      'stripe',
      httpSource({
        idempotencyKeyExpression: '$undefinedFunction(id)',
        idempotencyKeyPath: ['$.id'],
        eventTypeExpression: '($f := function($n) { $n > 1000000000 ? $n : $f($n + 1) }; $f(0))',
        aggregateIdExpression: '($f := function($n) { 1 + $f($n + 1) }; $f(0))',
      }),
      { transformer: engine(), logger },
    );
    const started = performance.now();
    const result = await extraction.extract(message({ id: 'k' }));
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(result).toEqual({
      kind: 'extracted',
      attributes: { idempotencyKey: 'k', eventType: null, aggregateId: null, publishTime: null },
    });
    const warns = logger.at('warn').map((l) => l.message);
    expect(warns).toHaveLength(3);
    expect(warns[0]).toContain("sources.stripe.idempotencyKeyExpression of source 'stripe' failed");
    expect(warns.some((w) => w.includes('sources.stripe.aggregateIdExpression'))).toBe(true);
    expect(warns.some((w) => w.includes('sources.stripe.eventTypeExpression'))).toBe(true);
  });

  it('stops the start on a syntax error, naming the key', () => {
    expect(() =>
      compileHttpExtraction('stripe', httpSource({ idempotencyKeyExpression: 'data.(' }), {
        transformer: engine(),
        logger: recordingLogger(),
      }),
    ).toThrow(
      /^sources\.stripe\.idempotencyKeyExpression: the JSONata expression does not compile: /,
    );
  });

  it('binds the source-stage variables into the stored payload', async () => {
    const app = new Hono();
    const store = inMemoryInboxStore();
    inboxRoutes(app, {
      sources: {
        orders: httpSource({
          path: '/orders',
          idempotencyKeyPath: ['$.id'],
          eventTypeHeader: 'X-Event',
          auth: { type: 'api-key', key: new Secret('k'), headerName: 'X-API-Key' },
          transform: {
            expression:
              '{"order": $, "tenant": $headers."x-tenant", "key": $headers."x-api-key", "id": $messageId, "source": $source, "topic": $topic, "attempt": $attempt, "at": $timestamp, "idem": $idempotencyKey, "type": $eventType}',
            timeoutMs: 100,
            maxDepth: 100,
            onError: 'Fail',
          },
        }),
      },
      basePath: '/inbox',
      maxBodyBytes: 1024,
      store,
      transformer: engine(),
      logger: recordingLogger(),
      registry: new Registry(),
      clock: { now: () => new Date('2026-03-01T12:00:00.000Z') },
    });
    const res = await app.request('/inbox/orders', {
      method: 'POST',
      body: '{"id":"o-1","total":12.5}',
      headers: { 'X-API-Key': 'k', 'X-Tenant': 'acme', 'X-Event': 'order.created' },
    });
    expect(res.status).toBe(202);
    const { messageId } = (await res.json()) as { messageId: string };
    expect(store.rows[0]?.message.payload.value).toEqual({
      order: { id: 'o-1', total: 12.5 },
      tenant: 'acme',
      id: messageId,
      source: 'orders',
      topic: 'order.created',
      attempt: 0,
      at: '2026-03-01T12:00:00.000Z',
      idem: 'o-1',
      type: 'order.created',
    });
  });

  it('answers 422 with the engine reason for a failing source transform', async () => {
    const app = new Hono();
    inboxRoutes(app, {
      sources: {
        s: httpSource({
          path: '/s',
          idempotencyKeyPath: ['$.id'],
          transform: {
            expression: '$error("nope")',
            timeoutMs: 100,
            maxDepth: 100,
            onError: 'Dead',
          },
        }),
      },
      basePath: '/inbox',
      maxBodyBytes: 1024,
      store: inMemoryInboxStore(),
      transformer: engine(),
      logger: recordingLogger(),
      registry: new Registry(),
    });
    const res = await app.request('/inbox/s', { method: 'POST', body: '{"id":"1"}' });
    expect(res.status).toBe(422);
    expect(await res.text()).toBe('{"error":"Transform failed: nope"}');
  });
});
