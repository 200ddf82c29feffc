/**
 * The HTTP publisher (spec §6.1): `POST <baseUrl + path>` with the payload's JSON text. One pooled
 * keep-alive undici `Pool` per destination name, so sockets are reused across messages and one
 * slow receiver never holds another's connections. Any 2xx is success; everything else, a 3xx
 * included (redirects are never followed, an SSRF guard), fails the attempt with a sanitized,
 * bounded text that becomes the row's `last_error`.
 *
 * The publisher owns the request's framing and the destination's credentials: a row's framing
 * headers are never sent, no row can make undici refuse the request, and a relayed row cannot
 * replace the destination's auth or static headers (publish-headers.ts); a request undici
 * refuses anyway costs no connection (destination-pool.ts). `close()` is bounded
 * (bounded-close.ts), so a hanging destination never holds a shutdown.
 */
import {
  DeadlineQueue,
  destinationPublisher,
  publishFailed,
  sanitize,
  SIGNING_HEADERS,
  TRACE_HEADERS,
  type AppConfig,
  type Clock,
  type Logger,
  type HeaderMap,
  type HttpDestinationConfig,
  type OutboxConfig,
  type PublishOutcome,
  type PublishRequest,
  type Publisher,
} from '@queuebox/core';
import { authHeaderSource, type AuthHeader, type AuthHeaderSource } from './destination-auth.js';
import { httpErrorText } from './error-text.js';
import { createOAuth2TokenManager, type OAuth2TokenManager } from './oauth2-token-manager.js';
import { CLOSE_GRACE_MS } from './bounded-close.js';
import { DestinationPool } from './destination-pool.js';
import { requestHeaders, staticHeaderList, staticHeaderMap, wireEntry } from './publish-headers.js';
import { exchange } from './http-exchange.js';
import { retryAfterDelayMs } from './retry-after.js';
import { statusClassOf, type HttpStatusClass } from './status-class.js';
import { joinUrl, requestTarget } from './url-builder.js';
import { createWebhookSigner, type WebhookSigner } from './webhook-signer.js';

export interface HttpPublisherOptions {
  readonly config: Pick<AppConfig, 'destinations' | 'http'> & {
    readonly outbox: Pick<OutboxConfig, 'concurrency'>;
  };
  /** Per response; the metrics owner counts `queuebox_http_publish_responses_total{status_class}`. */
  readonly onResponse?: (statusClass: HttpStatusClass) => void;
  /** Shared OAuth2 tokens; by default the publisher creates (and closes) its own manager. */
  readonly tokenManager?: OAuth2TokenManager;
  /** Sockets per destination; default `outbox.concurrency`, so every in-flight message has one. */
  readonly connections?: number;
  /** Where a row header that cannot be sent is reported; silent by default. */
  readonly logger?: Logger;
  /** The time a signing destination signs; the system clock by default. */
  readonly clock?: Clock;
}

interface HttpTarget {
  readonly pool: DestinationPool;
  readonly path: string;
  readonly timeoutMs: number;
  /** One timer for the budgets of every request to the destination. */
  readonly deadlines: DeadlineQueue;
  readonly staticHeaders: HeaderMap;
  /** The static headers merged once, for a message without headers of its own and no auth. */
  readonly staticList: readonly string[];
  readonly auth: AuthHeaderSource;
  /** Null unless the destination signs: the unsigned path does no signing work per message. */
  readonly signer: WebhookSigner | null;
}

export function createHttpPublisher(options: HttpPublisherOptions): Publisher {
  const { config } = options;
  const maxErrorBytes = config.http.maxErrorBodyBytes;
  const onResponse = options.onResponse ?? (() => undefined);
  const ownsTokens = options.tokenManager === undefined;
  const tokens = options.tokenManager ?? createOAuth2TokenManager();
  const connections = Math.max(1, options.connections ?? config.outbox.concurrency);

  async function publish(target: HttpTarget, request: PublishRequest): Promise<PublishOutcome> {
    let authHeader: AuthHeader | null;
    try {
      const resolved = target.auth();
      authHeader = resolved instanceof Promise ? await resolved : resolved;
    } catch (error: unknown) {
      return failure(
        `Publish failed: ${sanitize(error instanceof Error ? error.message : String(error))}`,
      );
    }
    const { message } = request;
    const { signer } = target;
    const trace = request.traceHeaders;
    const headers = requestHeaders(
      message,
      target.staticHeaders,
      authHeader === null ? null : wireEntry(authHeader),
      // The precomputed static list could hold a static trace header; while tracing, merge.
      trace === undefined ? target.staticList : undefined,
      ownedOn(signer !== null, trace !== undefined),
    );
    if (trace !== undefined) for (const [name, value] of trace) headers.list.push(name, value);
    if (headers.unsent !== null) warnUnsent(options.logger, message.id, headers.unsent);
    // The stored bytes as they were read, unless a transform made a new payload; signed as sent.
    const body = request.payload.body;
    if (signer !== null) signer(message.id, body, headers.list);
    const outcome = await exchange(target.pool, {
      path: target.path,
      headers: headers.list,
      body,
      timeoutMs: target.timeoutMs,
      deadlines: target.deadlines,
      cancel: request,
      maxErrorBytes,
    });
    if (outcome.kind === 'error') return failure(outcome.text);
    const { status } = outcome;
    onResponse(statusClassOf(status));
    if (status >= 200 && status <= 299) return SUCCESS;
    const error = httpErrorText(status, outcome.body, maxErrorBytes);
    const retryAfterMs =
      outcome.retryAfter === null ? null : retryAfterDelayMs(outcome.retryAfter, Date.now());
    return retryAfterMs === null
      ? failure(error)
      : { ok: false, error: publishFailed(error), retryAfterMs };
  }

  return destinationPublisher(
    'http',
    config,
    (_name, destination) => {
      const link = target(destination, tokens, connections, options.clock);
      return {
        publish: (request) => publish(link, request),
        close: () => link.pool.close(CLOSE_GRACE_MS),
      };
    },
    // The token cache outlives every destination's requests.
    async () => {
      if (ownsTokens) await tokens.close();
    },
  );
}

function target(
  destination: HttpDestinationConfig,
  tokens: OAuth2TokenManager,
  connections: number,
  clock: Clock | undefined,
): HttpTarget {
  const url = joinUrl(destination.baseUrl, destination.path);
  const staticHeaders = staticHeaderMap(destination.headers);
  // `?? null`: a hand-built configuration written before signing existed has no such key.
  const signing = destination.signing ?? null;
  const pool = new DestinationPool(
    url.origin,
    {
      connections,
      // 1 = keep-alive without pipelining: a slow response never delays the next message.
      pipelining: 1,
      connect: { timeout: Math.max(1, Math.floor(destination.timeoutMs / 2)) },
      // http-exchange bounds the whole request; undici's per-phase timers would only race it.
      headersTimeout: 0,
      bodyTimeout: 0,
    },
    // A retired pool's requests end within their own timeout.
    destination.timeoutMs,
  );
  return {
    pool,
    path: requestTarget(url),
    timeoutMs: destination.timeoutMs,
    deadlines: new DeadlineQueue(destination.timeoutMs),
    staticHeaders,
    staticList: staticHeaderList(staticHeaders),
    auth: authHeaderSource(destination.auth, tokens, destination.timeoutMs),
    signer: signing === null ? null : createWebhookSigner(signing, clock),
  };
}

const SUCCESS: PublishOutcome = { ok: true };

const SIGNING_AND_TRACE: readonly string[] = [...SIGNING_HEADERS, ...TRACE_HEADERS];

/** The lower-case names owned beyond core's `OwnedHeader` on this publish. */
function ownedOn(signs: boolean, traces: boolean): readonly string[] | undefined {
  if (traces) return signs ? SIGNING_AND_TRACE : TRACE_HEADERS;
  return signs ? SIGNING_HEADERS : undefined;
}

/** One line per attempt; the names are JSON-quoted so a CR or LF in one never splits the line. */
function warnUnsent(logger: Logger | undefined, messageId: string, names: readonly string[]): void {
  const quoted = names.map((name) => sanitize(JSON.stringify(name))).join(', ');
  logger?.warn(
    `Message ${messageId} has header name(s) ${quoted} that HTTP cannot carry, so QueueBox sent it without them. A header name is a token: letters, digits and !#$%&'*+-.^_\`|~ only.`,
    { messageId },
  );
}

function failure(text: string): PublishOutcome {
  return { ok: false, error: publishFailed(text) };
}
