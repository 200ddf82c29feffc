/**
 * The attribute extraction of a broker source (spec §7.2, the brokers' columns). The order
 * differs from HTTP's: the idempotency key reads the attribute header first, then the key
 * expression, the JSONPaths, the broker's own id (a message-id property or header, a record key)
 * and at last the `sha256:` digest of the body, so a broker message always has a key; the
 * aggregate id and event type read the expression, the paths, then the header (and the aggregate
 * id a record key, where the broker has one). The broker's fallbacks arrive with the delivery,
 * so one implementation serves every broker.
 */
import { createHash } from 'node:crypto';
import {
  sanitize,
  type DeliveryFallbacks,
  type Logger,
  type SourceConfig,
  type Transformer,
} from '@queuebox/core';
import {
  compileAttributeChain,
  type AttributeChain,
  type AttributeMessage,
  type AttributeStep,
} from './attribute-chain.js';
import type { ExtractedAttributes } from './extracted-attributes.js';
import { parsePublishTime } from './publish-time.js';

/** A source of any broker kind: every source but the HTTP webhook receiver. */
export type BrokerSourceConfig = Exclude<SourceConfig, { readonly type: 'http' }>;

export type BrokerAttributes = ExtractedAttributes;

export interface BrokerExtraction {
  /** Without a key expression the attributes come without a promise (most sources have none). */
  extract(
    message: AttributeMessage,
    body: Uint8Array,
    fallbacks: DeliveryFallbacks,
    logger?: Logger,
  ): BrokerAttributes | Promise<BrokerAttributes>;
}

export interface BrokerExtractionContext {
  readonly transformer: Transformer;
  readonly logger: Logger;
}

/** `sha256:<lower-case hex>` of the body bytes: the key of last resort, and of a dead row. */
export function bodyDigest(body: Uint8Array): string {
  return `sha256:${createHash('sha256').update(body).digest('hex')}`;
}

/** Compiles the chains of one broker source; a path or expression that does not compile throws. */
export function compileBrokerExtraction(
  sourceName: string,
  config: BrokerSourceConfig,
  context: BrokerExtractionContext,
): BrokerExtraction {
  const key = (name: string) => `sources.${sourceName}.${name}`;
  const chainContext = { source: sourceName, ...context };
  const expressionStep = (
    expression: string | null,
    attribute: 'idempotencyKey' | 'aggregateId' | 'eventType',
  ): AttributeStep[] =>
    expression === null
      ? []
      : [{ kind: 'expression', expression, keyPath: key(`${attribute}Expression`) }];
  const pathStep = (
    paths: readonly string[],
    keyName: 'idempotencyKeyPath' | 'aggregateIdPath' | 'eventTypePath' | 'scheduledAtPath',
  ): AttributeStep[] =>
    paths.length === 0 ? [] : [{ kind: 'paths', paths, keyPath: key(keyName) }];
  const headers = config.attributeHeaders;

  const idempotencyKey = compileAttributeChain(
    [
      { kind: 'header', name: headers.idempotencyKey },
      ...expressionStep(config.idempotencyKeyExpression, 'idempotencyKey'),
      ...pathStep(config.idempotencyKeyPath, 'idempotencyKeyPath'),
    ],
    chainContext,
  );
  const aggregateId = compileAttributeChain(
    [
      ...expressionStep(config.aggregateIdExpression, 'aggregateId'),
      ...pathStep(config.aggregateIdPath, 'aggregateIdPath'),
      { kind: 'header', name: headers.aggregateId },
    ],
    chainContext,
  );
  const eventType = compileAttributeChain(
    [
      ...expressionStep(config.eventTypeExpression, 'eventType'),
      ...pathStep(config.eventTypePath, 'eventTypePath'),
      { kind: 'header', name: headers.eventType },
    ],
    chainContext,
  );
  const readsPublishTime = config.scheduledAtHeader !== null || config.scheduledAtPath.length > 0;
  const publishTime: AttributeChain = compileAttributeChain(
    [
      ...(config.scheduledAtHeader === null
        ? []
        : [{ kind: 'header' as const, name: config.scheduledAtHeader }]),
      ...pathStep(config.scheduledAtPath, 'scheduledAtPath'),
    ],
    chainContext,
  );

  const timeOf = (text: string, logger: Logger): Date | null => {
    const time = parsePublishTime(text);
    if (time === null) {
      logger.warn(
        `The publish time '${sanitize(text)}' of a message of source '${sourceName}' is not a time, so it is ignored.`,
      );
    }
    return time;
  };

  async function readPublishTime(
    message: AttributeMessage,
    fallback: Date | undefined,
    logger: Logger,
  ): Promise<Date | null> {
    if (!readsPublishTime) return null;
    for await (const text of publishTime.values(message, logger)) {
      const time = timeOf(text, logger);
      if (time !== null) return time;
    }
    // The broker's own time (a message or record timestamp, a stored time), else the receipt.
    return fallback ?? null;
  }

  function readPublishTimeNow(
    message: AttributeMessage,
    fallback: Date | undefined,
    logger: Logger,
  ): Date | null {
    if (!readsPublishTime) return null;
    for (const text of publishTime.valuesNow(message, logger)) {
      const time = timeOf(text, logger);
      if (time !== null) return time;
    }
    return fallback ?? null;
  }

  const sync = idempotencyKey.sync && aggregateId.sync && eventType.sync && publishTime.sync;

  return {
    extract(message, body, fallbacks, logger = context.logger) {
      if (sync) {
        return {
          idempotencyKey:
            idempotencyKey.firstNow(message, logger) ??
            nonBlank(fallbacks.idempotencyKey) ??
            bodyDigest(body),
          aggregateId: aggregateId.firstNow(message, logger) ?? nonBlank(fallbacks.aggregateId),
          eventType: eventType.firstNow(message, logger),
          publishTime: readPublishTimeNow(message, fallbacks.publishTime, logger),
        };
      }
      return (async () => ({
        idempotencyKey:
          (await idempotencyKey.first(message, logger)) ??
          nonBlank(fallbacks.idempotencyKey) ??
          bodyDigest(body),
        aggregateId: (await aggregateId.first(message, logger)) ?? nonBlank(fallbacks.aggregateId),
        eventType: await eventType.first(message, logger),
        publishTime: await readPublishTime(message, fallbacks.publishTime, logger),
      }))();
    },
  };
}

/** A broker's own attribute, as it came; a blank one counts as missing. */
function nonBlank(value: string | undefined): string | null {
  return value === undefined || value.trim() === '' ? null : value;
}
