/**
 * Test-only harness for the inbox routes: a Hono app with the routes of the given sources, an
 * in-memory store, a recording logger, a pinned clock and a fake transform engine.
 */
import type { Json, SourceConfig } from '@queuebox/core';
import { Hono } from 'hono';
import { expect } from 'vitest';
import {
  createMemoryMetrics,
  fakeTransformer,
  httpSource,
  inMemoryInboxStore,
  recordingLogger,
} from '@queuebox/testing';
import { inboxRoutes, type InboxRoutesDeps } from '../src/http/inbox-routes.js';

export const NOW = Date.parse('2026-03-01T12:00:00.000Z');
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
export const KEY_MISSING =
  '{"error":"The request body does not carry the idempotency key that this source needs."}';

export const transformer = fakeTransformer({
  reshape: (input, bindings) => ({ wrapped: input, id: bindings.messageId ?? null }),
  fails: () => {
    throw new Error('T1003: boom on password=hunter2');
  },
  'data.id': (input) => (input as { data?: { id?: Json } }).data?.id,
});

export function setup(
  sources: Record<string, SourceConfig>,
  overrides: Partial<InboxRoutesDeps> = {},
) {
  const app = new Hono();
  const store = inMemoryInboxStore();
  const metrics = createMemoryMetrics().inbox;
  const logger = recordingLogger();
  const clock = { ms: NOW, now: () => new Date(clock.ms) };
  inboxRoutes(app, {
    sources,
    basePath: '/inbox',
    maxBodyBytes: 1024,
    store,
    transformer,
    logger,
    metrics,
    clock,
    ...overrides,
  });
  const post = (
    path: string,
    body: RequestInit['body'],
    headers: Record<string, string> = {},
    env?: unknown,
  ) =>
    app.request(
      path,
      {
        method: 'POST',
        body,
        headers,
        ...(body instanceof ReadableStream ? { duplex: 'half' } : {}),
      },
      env,
    );
  return { app, store, metrics, logger, clock, post };
}

export const stripe = (overrides: Parameters<typeof httpSource>[0] = {}) =>
  httpSource({
    path: '/stripe',
    idempotencyKeyPath: ['$.id'],
    eventTypePath: ['$.type'],
    ...overrides,
  });

export function chunked(chunks: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
}

/** The answer's status and body text exactly; a body is JSON and says so. */
export async function expectAnswer(res: Response, status: number, body: string) {
  expect(res.status).toBe(status);
  expect(await res.text()).toBe(body);
  if (body !== '') expect(res.headers.get('content-type')).toBe('application/json');
}
