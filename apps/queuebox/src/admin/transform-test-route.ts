import { randomUUID } from 'node:crypto';
import type { AdminConfig, Json } from '@queuebox/core';
import type { AuthValidator } from '@queuebox/inbox-service';
import type { Hono } from 'hono';
import { isObject, readAdminRequest } from './admin-request.js';
import type { TransformSandbox } from './transform-sandbox.js';

const DEFAULT_TIMEOUT_MS = 100;
const DEFAULT_TOPIC = 'test.topic';
const MAX_DEPTH = 100;

/**
 * `POST /admin/transform/test` (spec §11.6): evaluates a JSONata expression against a payload
 * with the context a first delivery gets; it sends and writes nothing. The evaluation runs in
 * the sandbox's worker thread, bounded in time and memory (see transform-sandbox.ts).
 */
export function transformTestRoute(
  app: Hono,
  admin: AdminConfig,
  auth: AuthValidator | null,
  sandbox: TransformSandbox,
): void {
  app.post('/admin/transform/test', async (c) => {
    const request = await readAdminRequest(c, admin, auth);
    if (!request.ok) return c.json({ success: false, error: request.error }, request.status);
    const parsed = parseTransformTest(request.body, admin.maxTransformTimeoutMs);
    if (typeof parsed === 'string')
      return c.json({ success: false, error: `Invalid request: ${parsed}` }, 400);

    const context = {
      messageId: randomUUID(),
      topic: parsed.mockTopic,
      attempt: 0,
      timestamp: new Date().toISOString(),
    };
    const bindings: Record<string, Json> = { ...context };
    if (parsed.mockSource !== null) bindings.source = parsed.mockSource;
    const outcome = await sandbox.run({
      expression: parsed.expression,
      payload: parsed.payload,
      bindings,
      timeoutMs: parsed.timeoutMs,
      maxDepth: MAX_DEPTH,
    });
    switch (outcome.kind) {
      case 'invalid':
        return c.json({ success: false, error: `Invalid expression: ${outcome.reason}` }, 400);
      case 'failed':
        return c.json({ success: false, error: outcome.reason }, 400);
      case 'result':
        // The worker's JSON text goes in as it is: the bytes c.json would have written.
        return c.body(
          `{"success":true,"result":${outcome.json},"context":${JSON.stringify(context)}}`,
          200,
          { 'Content-Type': 'application/json' },
        );
    }
  });
}

interface TransformTest {
  readonly expression: string;
  readonly payload: Json;
  readonly mockTopic: string;
  readonly mockSource: string | null;
  readonly timeoutMs: number;
}

/** Returns the request, or the reason it is invalid. Unknown fields are ignored. */
function parseTransformTest(body: unknown, maxTimeoutMs: number): TransformTest | string {
  if (!isObject(body)) return 'the body must be a JSON object';
  const { expression, payload, mockTopic, mockSource, timeoutMs } = body;
  if (typeof expression !== 'string' || expression.trim() === '')
    return "'expression' is required and must be a non-blank string";
  if (!('payload' in body) || payload === undefined) return "'payload' is required";
  if (mockTopic !== undefined && mockTopic !== null && typeof mockTopic !== 'string')
    return "'mockTopic' must be a string";
  if (mockSource !== undefined && mockSource !== null && typeof mockSource !== 'string')
    return "'mockSource' must be a string";
  if (
    timeoutMs !== undefined &&
    timeoutMs !== null &&
    (typeof timeoutMs !== 'number' || !Number.isInteger(timeoutMs) || timeoutMs <= 0)
  ) {
    return "'timeoutMs' must be a positive whole number";
  }
  return {
    expression,
    payload: payload as Json,
    mockTopic: typeof mockTopic === 'string' ? mockTopic : DEFAULT_TOPIC,
    mockSource: typeof mockSource === 'string' ? mockSource : null,
    timeoutMs: Math.min(
      typeof timeoutMs === 'number' ? timeoutMs : DEFAULT_TIMEOUT_MS,
      maxTimeoutMs,
    ),
  };
}
