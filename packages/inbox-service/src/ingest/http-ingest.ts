/**
 * Steps 4 to 10 of the HTTP source pipeline (spec §7.5): authentication, header filter,
 * correlation id, JSON parse, key extraction, source transform, store. The HTTP layer does steps
 * 1 to 3 (drain, rate limit, capped body read) and turns the answer into a response. The order
 * is the reference's and is observable: an unauthenticated request never learns whether its
 * body parses, and a filtered message costs no expression evaluation.
 *
 * A message that could not be stored as it came (not UTF-8, too deep, a NUL, a key longer than
 * its column) is answered 400 before the store, with a text naming what to fix: a store error
 * would answer 500, and a sender retries a 500 for ever.
 */
import {
  LazyChildLogger,
  CORRELATION_ID_HEADER,
  JsonPayload,
  sanitizeError,
  type HttpSourceConfig,
  type Logger,
  type TraceSpan,
  type Tracing,
  withTraceContext,
} from '@queuebox/core';
import { createAuthValidator, type AuthValidator } from '../auth/auth-validator.js';
import { neverStoredHeaders } from '../auth/credential-headers.js';
import { receivedCorrelationId } from '../extraction/correlation-id.js';
import { compileHttpExtraction, type HttpExtraction } from '../extraction/http-extraction.js';
import { compileHeaderFilter, type HeaderFilter } from '../filter/header-filter.js';
import { ingestLogTexts } from './log-texts.js';
import { endReceiveSpan, receiveSpan } from './receive-span.js';
import { STORE_ANSWER_BOUND_MS, storedWithin } from './store-bound.js';
import type { IngestDeps } from './ingest-deps.js';
import type { ReceivedHeaders } from './received-headers.js';
import {
  compileSourceTransform,
  runSourceTransform,
  type SourceTransform,
} from './source-transform.js';
import { checkAttributes, checkHeaders } from '../validation/attribute-check.js';
import { problemText, type InputProblem } from '../validation/input-problem.js';
import { readReceivedJson } from '../validation/received-json.js';

export const KEY_MISSING_ERROR =
  'The request body does not carry the idempotency key that this source needs.';

export interface HttpIngestDeps extends IngestDeps {
  /** Called after a new push row that is due at once was stored: the app wakes the relay. */
  readonly onPushStored?: () => void;
  /** Longest wait for the store before the answer is 500; `STORE_ANSWER_BOUND_MS` by default. */
  readonly storeAnswerBoundMs?: number;
  /** Present only while tracing is on: then each request gets a `receive <source>` span. */
  readonly tracing?: Tracing;
}

export interface IngestRequest {
  readonly headers: ReceivedHeaders;
  /** The exact bytes read under the body cap; the HMAC is checked over them. */
  readonly body: Uint8Array;
  readonly receivedAt: Date;
}

export type IngestStatus = 200 | 202 | 400 | 401 | 422 | 500;

export interface IngestAnswer {
  readonly status: IngestStatus;
  /** Serialised compactly as the JSON body. */
  readonly body: Readonly<Record<string, string>>;
  /** Set on every answer from step 6 on; the HTTP layer echoes it as `X-Correlation-Id`. */
  readonly correlationId: string | null;
}

export interface HttpIngest {
  handle(request: IngestRequest): Promise<IngestAnswer>;
}

/** Compiles one HTTP source at start (auth, filter, extraction chains, transform); throws config_invalid. */
export function createHttpIngest(
  sourceName: string,
  config: HttpSourceConfig,
  deps: HttpIngestDeps,
): HttpIngest {
  const auth: AuthValidator | null =
    config.auth === null
      ? null
      : createAuthValidator(config.auth, deps.clock, `sources.${sourceName}.auth`);
  const filter: HeaderFilter = compileHeaderFilter(config.filter, `sources.${sourceName}.filter`);
  const extraction: HttpExtraction = compileHttpExtraction(sourceName, config, deps);
  const transform: SourceTransform | null = compileSourceTransform(
    deps.transformer,
    config.transform,
    sourceName,
  );
  const excluded = neverStoredHeaders(config.auth);
  const sourceLogger = deps.logger.child({ source: sourceName });
  const storeAnswerBoundMs = deps.storeAnswerBoundMs ?? STORE_ANSWER_BOUND_MS;
  const { metrics } = deps;

  const { tracing } = deps;
  const handled = async (
    { headers, body, receivedAt }: IngestRequest,
    span: TraceSpan | null,
  ): Promise<IngestAnswer> => {
    // 4. Authentication, over the exact bytes read.
    if (auth !== null) {
      const result = auth.validate(headers.lookup, body);
      if (!result.ok) {
        sourceLogger.debug(ingestLogTexts.authFailed(sourceName, result.reason));
        return { status: 401, body: { error: result.reason }, correlationId: null };
      }
    }

    // 5. Header filter: no row of any kind.
    const verdict = filter.evaluate(headers.lookupLowerCase);
    if (!verdict.pass) {
      metrics.filtered.inc({ source: sourceName });
      sourceLogger.debug(ingestLogTexts.filtered(sourceName, verdict.rule));
      return { status: 202, body: { status: 'filtered' }, correlationId: null };
    }

    // 6. Correlation id: every answer from here on carries it.
    const correlationId = receivedCorrelationId(headers.get(CORRELATION_ID_HEADER), deps.newId);
    // Made on the first line logged: most messages log nothing.
    const logger: Logger = new LazyChildLogger(sourceLogger, { correlationId });
    const answer = (status: IngestStatus, answerBody: Record<string, string>): IngestAnswer => ({
      status,
      body: answerBody,
      correlationId,
    });

    const refuse = (problem: InputProblem): IngestAnswer => {
      const error = problemText(problem);
      logger.debug(ingestLogTexts.refused(sourceName, error));
      return answer(400, { error });
    };

    // 7. JSON, whatever the Content-Type says: UTF-8, JSON, and storable as it came.
    const received = readReceivedJson(body);
    if (!received.ok) {
      if (received.problem.kind !== 'invalid-json') return refuse(received.problem);
      logger.debug(ingestLogTexts.invalidJson(sourceName));
      return answer(400, { error: 'Invalid JSON' });
    }

    // 8. Attributes, from the original body.
    const extracted = await extraction.extract(
      { body: received.value, text: received.text, header: headers.lookup },
      logger,
    );
    if (extracted.kind === 'missing-key') {
      logger.warn(ingestLogTexts.keyMissing(extracted.tried, sourceName));
      metrics.rejections.inc({ reason: 'extraction_failed' });
      return answer(400, { error: KEY_MISSING_ERROR });
    }
    const attributes = extracted.attributes;
    const attributeProblem = checkAttributes(attributes);
    if (attributeProblem !== null) {
      const error = problemText(attributeProblem);
      logger.warn(ingestLogTexts.attributeRefused(sourceName, error));
      metrics.rejections.inc({ reason: 'extraction_failed' });
      return answer(400, { error });
    }
    const sentHeaders = headers.stored(excluded);
    // While tracing, the row carries the receive span's context: the relay continues from it.
    const storedHeaders =
      span === null ? sentHeaders : withTraceContext(sentHeaders, span.contextHeaders());
    const headerProblem = checkHeaders(storedHeaders);
    if (headerProblem !== null) return refuse(headerProblem);
    const id = deps.newId();

    // 9. Source transform, before the duplicate check. Without one, the received text is
    // stored: PostgreSQL parses the sender's digits, no double in between.
    let payload = JsonPayload.fromText(received.text);
    if (transform !== null) {
      const result = await runSourceTransform(
        transform,
        received.value,
        { messageId: id, source: sourceName, receivedAt, headers: sentHeaders },
        attributes,
      );
      if (result.ok) {
        payload = result.payload;
      } else {
        const { reason } = result;
        if (transform.onError === 'Skip') {
          logger.warn(ingestLogTexts.transformSkipped(sourceName, reason));
        } else {
          logger.warn(ingestLogTexts.transformRejected(sourceName, transform.onError, reason));
          metrics.rejections.inc({ reason: 'transform_failed' });
          return answer(422, { error: `Transform failed: ${reason}` });
        }
      }
    }

    // 10. Store once per (source, idempotency key).
    try {
      const store = deps.store.store(
        {
          id,
          source: sourceName,
          idempotencyKey: attributes.idempotencyKey,
          aggregateId: attributes.aggregateId,
          eventType: attributes.eventType,
          payload,
          headers: storedHeaders,
          correlationId,
          consumption: config.consumption,
          publishTime: attributes.publishTime,
        },
        { initialDelayMs: config.initialDelayMs },
      );
      // Bounded here, not by the pool's 30 s connection timeout (see STORE_ANSWER_BOUND_MS).
      const result = await storedWithin(store, storeAnswerBoundMs);
      if (result.kind === 'duplicate') {
        metrics.messages.inc({ status: 'duplicate' });
        return answer(200, { status: 'duplicate' });
      }
      metrics.messages.inc({ status: 'new' });
      if (config.consumption === 'push' && config.initialDelayMs === 0) deps.onPushStored?.();
      return answer(202, { messageId: id });
    } catch (error: unknown) {
      logger.error(ingestLogTexts.storeFailed(sourceName, sanitizeError(error)));
      metrics.rejections.inc({ reason: 'storage_failed' });
      return answer(500, { error: 'Storage failed' });
    }
  };

  return {
    async handle(request) {
      if (tracing === undefined) return handled(request, null);
      const span = receiveSpan(tracing, 'http', 'server', sourceName, {
        traceparent: request.headers.get('traceparent'),
        tracestate: request.headers.get('tracestate'),
      });
      let answer: IngestAnswer | null = null;
      try {
        answer = await handled(request, span);
        return answer;
      } finally {
        endReceiveSpan(span, answer);
      }
    },
  };
}
