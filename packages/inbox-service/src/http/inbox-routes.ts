/**
 * The webhook routes of the HTTP sources (spec §7.5, §11.3): one `POST <basePath><path>` per
 * `type: http` source, mounted by the app on the data port. The app's data-port middleware has
 * already answered drain (503) and a declared Content-Length over the cap (413); this file does
 * the rate limit and the capped body read, and hands the rest to the ingest pipeline.
 */
import { randomUUID } from 'node:crypto';
import {
  CORRELATION_ID_HEADER,
  QueueBoxError,
  systemClock,
  type Clock,
  type InboxMetrics,
  type InboxStore,
  type Logger,
  type SourceConfig,
  type Tracing,
  type Transformer,
} from '@queuebox/core';
import type { Context, Hono } from 'hono';
import { createHttpIngest, type HttpIngest } from '../ingest/http-ingest.js';
import { bodyTooLargeJson, readRequestBody } from './capped-body.js';
import { TokenBucket } from './rate-limiter.js';
import { receivedHeadersOf } from './incoming-headers.js';
import { sourceRoutePath } from './route-path.js';

export interface InboxRoutesDeps {
  /** `config.sources`; only `type: http` entries get a route. */
  readonly sources: Readonly<Record<string, SourceConfig>>;
  /** `config.inbox.basePath`. */
  readonly basePath: string;
  /** `config.inbox.maxBodyBytes`. */
  readonly maxBodyBytes: number;
  readonly store: InboxStore;
  readonly transformer: Transformer;
  readonly logger: Logger;
  readonly metrics: InboxMetrics;
  readonly clock?: Clock;
  /** Inbox row ids and generated correlation ids; random UUIDs unless a test pins them. */
  readonly newId?: () => string;
  /** Called when a stored push row is due at once; the app wakes the relay with it. */
  readonly onPushStored?: () => void;
  /** Longest wait for a store before the 500; `STORE_ANSWER_BOUND_MS` unless a test shortens it. */
  readonly storeAnswerBoundMs?: number;
  /** Present only while tracing is on (core's `Tracing`). */
  readonly tracing?: Tracing;
}

interface SourceRoute {
  readonly path: string;
  readonly ingest: HttpIngest;
  readonly bucket: TokenBucket | null;
}

/**
 * A fresh header record per response: @hono/node-server keeps the record a response was built
 * with and writes its own entries (Content-Length) into it, so a shared constant would carry
 * them into every later response (found on a real server, invisible to `app.request()`).
 */
const jsonHeaders = (): Record<string, string> => ({ 'Content-Type': 'application/json' });

/**
 * Compiles every HTTP source first (a bad expression, path, glob or duplicate route throws a
 * `config_invalid` QueueBoxError before any route exists), then registers the routes.
 */
export function inboxRoutes(app: Hono, deps: InboxRoutesDeps): void {
  const clock = deps.clock ?? systemClock;
  const ingestDeps = {
    store: deps.store,
    transformer: deps.transformer,
    logger: deps.logger,
    metrics: deps.metrics,
    clock,
    newId: deps.newId ?? randomUUID,
    onPushStored: deps.onPushStored,
    storeAnswerBoundMs: deps.storeAnswerBoundMs,
    ...(deps.tracing === undefined ? {} : { tracing: deps.tracing }),
  };
  const routes: SourceRoute[] = [];
  const owners = new Map<string, string>();
  for (const [name, source] of Object.entries(deps.sources)) {
    if (source.type !== 'http') continue;
    const path = sourceRoutePath(deps.basePath, source.path);
    const owner = owners.get(path);
    if (owner !== undefined) {
      throw new QueueBoxError(
        'config_invalid',
        `sources.${name}.path: the route ${path} is already the route of source '${owner}'.`,
      );
    }
    owners.set(path, name);
    routes.push({
      path,
      ingest: createHttpIngest(name, source, ingestDeps),
      bucket:
        source.rateLimit === null
          ? null
          : new TokenBucket(source.rateLimit.requestsPerMinute, clock),
    });
  }
  const tooLarge = bodyTooLargeJson(deps.maxBodyBytes);
  for (const route of routes) {
    app.post(route.path, (c) => handle(c, route, deps.maxBodyBytes, tooLarge, clock));
  }
}

async function handle(
  c: Context,
  route: SourceRoute,
  maxBodyBytes: number,
  tooLarge: string,
  clock: Clock,
): Promise<Response> {
  const receivedAt = clock.now();
  // 2. Rate limit, before a byte of the body is read.
  if (route.bucket !== null) {
    const decision = route.bucket.tryTake();
    if (!decision.ok)
      return c.body(null, 429, { 'Retry-After': String(decision.retryAfterSeconds) });
  }
  // 3. Body under the cap; also counts a chunked body that declared no length.
  const read = await readRequestBody(c, maxBodyBytes);
  if (!read.ok) return c.body(tooLarge, 413, { ...jsonHeaders(), Connection: 'close' });
  // 4..10.
  const answer = await route.ingest.handle({
    headers: receivedHeadersOf(c),
    body: read.bytes,
    receivedAt,
  });
  const headers = jsonHeaders();
  if (answer.correlationId !== null) headers[CORRELATION_ID_HEADER] = answer.correlationId;
  return c.body(JSON.stringify(answer.body), answer.status, headers);
}
