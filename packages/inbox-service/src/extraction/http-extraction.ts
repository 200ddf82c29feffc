/**
 * The attribute extraction of an HTTP source (spec §7.2, HTTP column): per attribute the header
 * first, then the key expression, then the JSONPath list. The idempotency key has no digest
 * fallback on HTTP: a webhook without one is refused with 400, since two different events with
 * the same bytes would otherwise merge into one row.
 */
import {
  QueueBoxError,
  sanitize,
  type HttpSourceConfig,
  type Logger,
  type Transformer,
} from '@queuebox/core';
import { neverStoredHeaders } from '../auth/credential-headers.js';
import {
  compileAttributeChain,
  type AttributeChain,
  type AttributeMessage,
  type AttributeStep,
} from './attribute-chain.js';
import type { ExtractedAttributes } from './extracted-attributes.js';
import { parsePublishTime } from './publish-time.js';

export type HttpAttributes = ExtractedAttributes;

export type HttpExtractionResult =
  | { readonly kind: 'extracted'; readonly attributes: HttpAttributes }
  /** `tried` names the header, expression and paths that gave nothing, for the WARN line. */
  | { readonly kind: 'missing-key'; readonly tried: string };

export interface HttpExtraction {
  extract(message: AttributeMessage, logger?: Logger): Promise<HttpExtractionResult>;
}

export interface HttpExtractionContext {
  readonly transformer: Transformer;
  readonly logger: Logger;
}

/**
 * Compiles the chains of one HTTP source; throws a `config_invalid` QueueBoxError that names the
 * key when a path or an expression does not compile or a key header could never be read.
 */
export function compileHttpExtraction(
  sourceName: string,
  config: HttpSourceConfig,
  context: HttpExtractionContext,
): HttpExtraction {
  const key = (name: string) => `sources.${sourceName}.${name}`;
  checkHeaders(sourceName, config);
  const chainContext = { source: sourceName, ...context };
  const chain = (
    header: string | null,
    expression: string | null,
    paths: readonly string[],
    attribute: 'idempotencyKey' | 'aggregateId' | 'eventType',
  ): AttributeChain => {
    const steps: AttributeStep[] = [];
    if (header !== null) steps.push({ kind: 'header', name: header });
    if (expression !== null)
      steps.push({ kind: 'expression', expression, keyPath: key(`${attribute}Expression`) });
    if (paths.length > 0) steps.push({ kind: 'paths', paths, keyPath: key(`${attribute}Path`) });
    return compileAttributeChain(steps, chainContext);
  };

  const idempotencyKey = chain(
    config.idempotencyKeyHeader,
    config.idempotencyKeyExpression,
    config.idempotencyKeyPath,
    'idempotencyKey',
  );
  if (idempotencyKey.isEmpty) {
    throw new QueueBoxError(
      'config_invalid',
      `${key('idempotencyKeyPath')}: an HTTP source needs one of idempotencyKeyPath, idempotencyKeyHeader or idempotencyKeyExpression.`,
    );
  }
  const aggregateId = chain(
    config.aggregateIdHeader,
    config.aggregateIdExpression,
    config.aggregateIdPath,
    'aggregateId',
  );
  const eventType = chain(
    config.eventTypeHeader,
    config.eventTypeExpression,
    config.eventTypePath,
    'eventType',
  );
  const publishSteps: AttributeStep[] = [];
  if (config.scheduledAtHeader !== null)
    publishSteps.push({ kind: 'header', name: config.scheduledAtHeader });
  if (config.scheduledAtPath.length > 0) {
    publishSteps.push({
      kind: 'paths',
      paths: config.scheduledAtPath,
      keyPath: key('scheduledAtPath'),
    });
  }
  const publishTime = compileAttributeChain(publishSteps, chainContext);

  async function readPublishTime(message: AttributeMessage, logger: Logger): Promise<Date | null> {
    if (publishTime.isEmpty) return null;
    // Header first, then each path; a value that is no time counts as missing and the next is tried.
    for await (const text of publishTime.values(message, logger)) {
      const time = parsePublishTime(text);
      if (time !== null) return time;
      logger.warn(
        `The publish time '${sanitize(text)}' of a message of source '${sourceName}' is not a time, so it is ignored.`,
      );
    }
    return null;
  }

  return {
    async extract(message, logger = context.logger) {
      const keyValue = await idempotencyKey.first(message, logger);
      if (keyValue === null) return { kind: 'missing-key', tried: idempotencyKey.description };
      return {
        kind: 'extracted',
        attributes: {
          idempotencyKey: keyValue,
          aggregateId: await aggregateId.first(message, logger),
          eventType: await eventType.first(message, logger),
          publishTime: await readPublishTime(message, logger),
        },
      };
    },
  };
}

/**
 * A key header that names a credential header could never be read, because those headers are
 * never stored (spec §7.2). The configuration refuses this too; checking again here keeps a
 * hand-built configuration (tests, the admin surface) from starting a source that rejects all.
 */
function checkHeaders(sourceName: string, config: HttpSourceConfig): void {
  const forbidden = neverStoredHeaders(config.auth);
  const headers = {
    idempotencyKeyHeader: config.idempotencyKeyHeader,
    aggregateIdHeader: config.aggregateIdHeader,
    eventTypeHeader: config.eventTypeHeader,
    scheduledAtHeader: config.scheduledAtHeader,
  };
  for (const [name, header] of Object.entries(headers)) {
    if (header !== null && forbidden.has(header.trim().toLowerCase())) {
      throw new QueueBoxError(
        'config_invalid',
        `sources.${sourceName}.${name}: '${header}' carries credentials and is never stored, so it cannot hold a message attribute.`,
      );
    }
  }
}
