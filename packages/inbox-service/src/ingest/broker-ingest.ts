/**
 * The inbox side of a broker source (spec §7.6, §7.7, §7.8): what every broker adapter hands
 * each delivery to. Header filter, correlation id, JSON, attributes, source transform and store,
 * the HTTP pipeline's steps on the same modules (filter, attribute chain, validation, transform),
 * answered with a verdict instead of a status code.
 *
 * The verdict says how the adapter settles the delivery, and `ack` is given only once a row is
 * committed (or none is due: a filtered message, a duplicate):
 * - stored, duplicate, filtered → ack;
 * - a message that can never be stored as it came (over `inbox.maxBodyBytes`, empty, not UTF-8,
 *   compressed, not JSON, nested too deep, a NUL, a number PostgreSQL refuses, an attribute longer
 *   than its column, a header with a NUL) → a dead row whose `last_error` says which, then ack:
 *   redelivering it would fail the same way for ever. Its key is the body's `sha256:` digest,
 *   its payload the body if that can be stored, else `{"raw": <the text>}` (`base64:<bytes>` when
 *   the text is not UTF-8 or holds a NUL), and for a body over the size bound
 *   `{"bodyBytes": <size>}` only;
 * - a transform rejection (onError Fail or Dead) → the original payload as a dead row, then ack;
 * - a store failure or any other error → retry (requeue, nak, seek back), the adapter backing off.
 */
import {
  LazyChildLogger,
  CORRELATION_ID_HEADER,
  JsonPayload,
  sanitize,
  sanitizeError,
  setOwn,
  toError,
  type DeliveryHandler,
  type DeliveryVerdict,
  type Headers,
  type Logger,
  type NewInboxMessage,
  type SourceDelivery,
  type StoreOptions,
  type TraceSpan,
  type Tracing,
  withTraceContext,
} from '@queuebox/core';
import { receivedCorrelationId } from '../extraction/correlation-id.js';
import {
  bodyDigest,
  compileBrokerExtraction,
  type BrokerAttributes,
  type BrokerSourceConfig,
} from '../extraction/broker-extraction.js';
import { compileHeaderFilter } from '../filter/header-filter.js';
import {
  checkAttributes,
  checkHeaders,
  unstorableCharacter,
} from '../validation/attribute-check.js';
import { declaredEncoding } from '../validation/body-encoding.js';
import { deadRowText, type InputProblem } from '../validation/input-problem.js';
import { readReceivedJson } from '../validation/received-json.js';
import { brokerLogTexts } from './broker-log-texts.js';
import { ByteGate } from './byte-gate.js';
import type { IngestDeps } from './ingest-deps.js';
import { ReceivedHeaders } from './received-headers.js';
import { endBrokerReceiveSpan, receiveSpan } from './receive-span.js';
import { compileSourceTransform, runSourceTransform } from './source-transform.js';

export interface BrokerIngestDeps extends IngestDeps {
  /** `inbox.maxBodyBytes`: a larger broker message becomes a dead row without its body. */
  readonly maxBodyBytes?: number;
  /** Present only while tracing is on: then each delivery gets a `receive <source>` span. */
  readonly tracing?: Tracing;
}

/** `inbox.maxBodyBytes`'s default (spec §7.5). */
export const DEFAULT_MAX_BODY_BYTES = 1_048_576;

/**
 * Body bytes a broker source holds unsettled at once: 16 MiB, or two of the largest
 * bodies stored when `inbox.maxBodyBytes` is larger than 8 MiB (one message is always let in).
 */
export function inHandBytes(maxBodyBytes: number): number {
  return Math.max(16 * 1_048_576, 2 * maxBodyBytes);
}

const NO_EXCLUSIONS: ReadonlySet<string> = new Set();

/** Compiles one broker source at start (filter, chains, transform); throws config_invalid. */
export function createBrokerIngest(
  sourceName: string,
  config: BrokerSourceConfig,
  deps: BrokerIngestDeps,
): DeliveryHandler {
  const filter = compileHeaderFilter(config.filter, `sources.${sourceName}.filter`);
  const extraction = compileBrokerExtraction(sourceName, config, deps);
  const transform = compileSourceTransform(deps.transformer, config.transform, sourceName);
  const sourceLogger = deps.logger.child({ source: sourceName });
  const { metrics } = deps;
  const storeOptions = { initialDelayMs: config.initialDelayMs };
  const maxBodyBytes = deps.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const budget = inHandBytes(maxBodyBytes);
  // Parsing and storing a body costs several times its size: one body of the largest size
  // stored (or several smaller ones) is worked on at a time.
  const gate = new ByteGate(maxBodyBytes);

  async function handle(
    delivery: SourceDelivery,
    headers: ReceivedHeaders,
    span: TraceSpan | null,
  ): Promise<DeliveryVerdict> {
    const receivedAt = deps.clock.now();
    const bytes = delivery.body.byteLength;

    // Before the filter, as the HTTP source refuses an oversized body before it reads headers.
    const tooLarge: InputProblem | null =
      bytes > maxBodyBytes ? { kind: 'too-large', bytes, limit: maxBodyBytes } : null;

    const filtered = filter.evaluate(headers.lookupLowerCase);
    if (tooLarge === null && !filtered.pass) {
      metrics.filtered.inc({ source: sourceName });
      sourceLogger.debug(brokerLogTexts.filtered(sourceName, filtered.rule));
      return { settle: 'ack', outcome: 'filtered' };
    }

    const correlationId = receivedCorrelationId(
      headers.get(CORRELATION_ID_HEADER) ?? delivery.fallbacks.correlationId,
      deps.newId,
    );
    // Made on the first line logged: most messages log nothing.
    const logger: Logger = new LazyChildLogger(sourceLogger, { correlationId });
    const sentHeaders = headers.stored(NO_EXCLUSIONS);
    // While tracing, the row carries the receive span's context: the relay continues from it.
    const storedHeaders =
      span === null ? sentHeaders : withTraceContext(sentHeaders, span.contextHeaders());

    /** A message that can never be stored as it came: a dead row under its body's digest. */
    const storeAsDead = async (problem: InputProblem, bodyStorable: string | null) => {
      const reason = sanitize(deadRowText(problem));
      logger.warn(brokerLogTexts.storedDead(sourceName, reason));
      const verdict = await store(
        {
          source: sourceName,
          correlationId,
          consumption: config.consumption,
          id: deps.newId(),
          idempotencyKey: bodyDigest(delivery.body),
          aggregateId: null,
          eventType: null,
          payload:
            problem.kind === 'too-large'
              ? JsonPayload.fromText(`{"bodyBytes":${bytes}}`)
              : bodyStorable === null
                ? rawPayload(delivery.body)
                : JsonPayload.fromText(bodyStorable),
          headers: storableHeaders(storedHeaders),
          publishTime: null,
        },
        { initialDelayMs: 0, dead: true, lastError: reason },
        logger,
      );
      // Counted once per dead row, not again for each redelivery of the same bytes.
      if (verdict.settle === 'ack' && verdict.outcome === 'dead')
        metrics.rejections.inc({ reason: 'extraction_failed' });
      return verdict;
    };

    if (tooLarge !== null) return storeAsDead(tooLarge, null);
    const received = readReceivedJson(delivery.body);
    if (!received.ok) {
      const { problem } = received;
      const declared =
        problem.kind === 'invalid-json' && problem.why !== 'too-deep' && problem.why !== 'empty'
          ? declaredEncoding(headers.get('content-encoding'))
          : undefined;
      return storeAsDead(
        declared === undefined || problem.kind !== 'invalid-json'
          ? problem
          : { ...problem, encoding: problem.encoding ?? declared },
        null,
      );
    }
    const headerProblem = checkHeaders(storedHeaders);
    if (headerProblem !== null) return storeAsDead(headerProblem, received.text);

    const extracted = extraction.extract(
      { body: received.value, text: received.text, header: headers.lookup },
      delivery.body,
      delivery.fallbacks,
      logger,
    );
    const attributes: BrokerAttributes = extracted instanceof Promise ? await extracted : extracted;
    const attributeProblem = checkAttributes(attributes);
    if (attributeProblem !== null) return storeAsDead(attributeProblem, received.text);

    const id = deps.newId();
    // Named fields, not a spread of shared ones: on Node.js 20 a spread into a literal with more
    // fields takes V8's slow clone (the largest single cost of a broker message on the inbox
    // side); Node.js 24 is fast either way.
    const message: NewInboxMessage = {
      source: sourceName,
      correlationId,
      consumption: config.consumption,
      id,
      idempotencyKey: attributes.idempotencyKey,
      aggregateId: attributes.aggregateId,
      eventType: attributes.eventType,
      payload: JsonPayload.fromText(received.text),
      headers: storedHeaders,
      publishTime: attributes.publishTime,
    };
    if (transform === null) return store(message, storeOptions, logger);

    const result = await runSourceTransform(
      transform,
      received.value,
      { messageId: id, source: sourceName, receivedAt, headers: sentHeaders },
      attributes,
    );
    if (result.ok) return store({ ...message, payload: result.payload }, storeOptions, logger);
    const { reason } = result;
    if (transform.onError === 'Skip') {
      logger.warn(brokerLogTexts.transformSkipped(sourceName, reason));
      return store(message, storeOptions, logger);
    }
    // Fail and Dead alike: the original payload as a dead row (spec §7.6).
    logger.warn(brokerLogTexts.transformRejected(sourceName, transform.onError, reason));
    const rejected = await store(
      message,
      { initialDelayMs: 0, dead: true, lastError: `Transform failed: ${reason}` },
      logger,
    );
    if (rejected.settle === 'ack' && rejected.outcome === 'dead')
      metrics.rejections.inc({ reason: 'transform_failed' });
    return rejected;
  }

  async function store(
    message: NewInboxMessage,
    options: StoreOptions,
    logger: Logger,
  ): Promise<DeliveryVerdict> {
    try {
      const result = await deps.store.store(message, options);
      if (result.kind === 'duplicate') {
        metrics.messages.inc({ status: 'duplicate' });
        return { settle: 'ack', outcome: 'duplicate' };
      }
      if (options.dead === true) return { settle: 'ack', outcome: 'dead' };
      metrics.messages.inc({ status: 'new' });
      return { settle: 'ack', outcome: 'stored' };
    } catch (error: unknown) {
      const reason = sanitizeError(error);
      logger.error(brokerLogTexts.storeFailed(sourceName, reason));
      return { settle: 'retry', reason };
    }
  }

  const { tracing } = deps;
  async function traced(delivery: SourceDelivery, tracing: Tracing): Promise<DeliveryVerdict> {
    const headers = new ReceivedHeaders(Object.entries(delivery.headers));
    const span = receiveSpan(tracing, config.type, 'consumer', sourceName, {
      traceparent: headers.get('traceparent'),
      tracestate: headers.get('tracestate'),
    });
    let verdict: DeliveryVerdict | null = null;
    try {
      verdict = await handle(delivery, headers, span);
      return verdict;
    } finally {
      endBrokerReceiveSpan(span, verdict);
    }
  }

  // Without tracing, no wrapper of its own: each layer of promises is paid once per message.
  const received: (delivery: SourceDelivery) => Promise<DeliveryVerdict> =
    tracing === undefined
      ? (delivery) => handle(delivery, new ReceivedHeaders(Object.entries(delivery.headers)), null)
      : (delivery) => traced(delivery, tracing);

  return {
    inHandBytes: budget,
    maxBodyBytes,
    async handle(delivery) {
      try {
        return await gate.run(delivery.body.byteLength, () => received(delivery));
      } catch (error: unknown) {
        // The port promises a verdict: an unexpected error sends the delivery back, like a store error.
        const reason = sanitize(toError(error).message);
        sourceLogger.error(brokerLogTexts.processingFailed(sourceName, reason));
        return { settle: 'retry', reason };
      }
    },
  };
}

// `fatal`: a byte sequence that is not UTF-8 throws, so such a body is kept as base64.
const DECODER = new TextDecoder('utf-8', { fatal: true });

/** `{"raw": <the body as text>}`, or `base64:` of the bytes when text would alter or refuse them. */
function rawPayload(body: Uint8Array): JsonPayload {
  let text: string | null;
  try {
    text = DECODER.decode(body);
  } catch {
    text = null;
  }
  if (text === null || unstorableCharacter(text) !== null) {
    text = `base64:${Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('base64')}`;
  }
  return JsonPayload.fromText(JSON.stringify({ raw: text }));
}

/** The headers without those that cannot be stored (a NUL or a lone surrogate in name or value). */
function storableHeaders(headers: Headers): Headers {
  if (checkHeaders(headers) === null) return headers;
  const kept: Headers = {};
  for (const [name, value] of Object.entries(headers)) {
    if (unstorableCharacter(name) !== null || unstorableCharacter(value) !== null) continue;
    setOwn(kept, name, value);
  }
  return kept;
}
