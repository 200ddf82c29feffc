/**
 * Steps 4 to 10 of the HTTP source pipeline (spec §7.5): authentication, header filter,
 * correlation id, JSON parse, key extraction, source transform, store. The HTTP layer does steps
 * 1 to 3 (drain, rate limit, capped body read) and turns the answer into a response. The order
 * is the reference's and is observable: an unauthenticated request never learns whether its
 * body parses, and a filtered message costs no expression evaluation.
 */
import {
  sanitize,
  sanitizeError,
  type Clock,
  type HttpSourceConfig,
  type InboxStore,
  type Json,
  type Logger,
  type Transformer,
} from '@queuebox/core';
import { createAuthValidator, type AuthValidator } from '../auth/auth-validator.js';
import { neverStoredHeaders } from '../auth/credential-headers.js';
import { CORRELATION_ID_HEADER, correlationIdOf } from '../extraction/correlation-id.js';
import { compileHttpExtraction, type HttpExtraction } from '../extraction/http-extraction.js';
import { compileHeaderFilter, type HeaderFilter } from '../filter/header-filter.js';
import { ingestLogTexts } from './log-texts.js';
import type { InboxMetrics } from './metrics.js';
import type { ReceivedHeaders } from './received-headers.js';
import {
  compileSourceTransform,
  sourceBindings,
  type SourceTransform,
} from './source-transform.js';

export const KEY_MISSING_ERROR =
  'The request body does not carry the idempotency key that this source needs.';

export interface HttpIngestDeps {
  readonly store: InboxStore;
  readonly transformer: Transformer;
  readonly logger: Logger;
  readonly metrics: InboxMetrics;
  readonly clock: Clock;
  /** New inbox row ids and fallback correlation ids: random UUIDs. */
  readonly newId: () => string;
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
  const { metrics } = deps;

  return {
    async handle({ headers, body, receivedAt }) {
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
      const correlationId = correlationIdOf(headers.get(CORRELATION_ID_HEADER), deps.newId);
      const logger = sourceLogger.child({ correlationId });
      const answer = (status: IngestStatus, answerBody: Record<string, string>): IngestAnswer => ({
        status,
        body: answerBody,
        correlationId,
      });

      // 7. JSON, whatever the Content-Type says.
      const parsed = parseJson(body);
      if (parsed === INVALID) {
        logger.debug(ingestLogTexts.invalidJson(sourceName));
        return answer(400, { error: 'Invalid JSON' });
      }

      // 8. Attributes, from the original body.
      const extracted = await extraction.extract({ body: parsed, header: headers.lookup }, logger);
      if (extracted.kind === 'missing-key') {
        logger.warn(ingestLogTexts.keyMissing(extracted.tried, sourceName));
        metrics.rejections.inc({ reason: 'extraction_failed' });
        return answer(400, { error: KEY_MISSING_ERROR });
      }
      const attributes = extracted.attributes;
      const id = deps.newId();
      const storedHeaders = headers.stored(excluded);

      // 9. Source transform, before the duplicate check.
      let payload: Json = parsed;
      if (transform !== null) {
        const bindings = sourceBindings({
          messageId: id,
          source: sourceName,
          receivedAt,
          headers: storedHeaders,
          idempotencyKey: attributes.idempotencyKey,
          eventType: attributes.eventType,
        });
        const outcome = await transform.run(parsed, bindings);
        if (outcome.ok) {
          payload = outcome.value;
        } else {
          const reason = sanitize(outcome.reason);
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
        const result = await deps.store.store(
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
        if (result.kind === 'duplicate') {
          metrics.messages.inc({ status: 'duplicate' });
          return answer(200, { status: 'duplicate' });
        }
        metrics.messages.inc({ status: 'new' });
        return answer(202, { messageId: id });
      } catch (error: unknown) {
        logger.error(ingestLogTexts.storeFailed(sourceName, sanitizeError(error)));
        metrics.rejections.inc({ reason: 'storage_failed' });
        return answer(500, { error: 'Storage failed' });
      }
    },
  };
}

const INVALID = Symbol('invalid JSON');
const DECODER = new TextDecoder('utf-8');
/**
 * Malformed UTF-8 becomes U+FFFD instead of failing, as the reference's decoding did; a body
 * that is then not JSON text (empty, truncated, trailing garbage) is refused.
 */
function parseJson(body: Uint8Array): Json | typeof INVALID {
  try {
    return JSON.parse(DECODER.decode(body)) as Json;
  } catch {
    return INVALID;
  }
}
