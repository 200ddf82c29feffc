import { randomUUID } from 'node:crypto';
import {
  CORRELATION_ID_HEADER,
  framingHeadersOf,
  RELAYED_ROW_HEADER,
  renderSourceTopic,
  type RelayClaimedMessage,
  type Headers,
  type RelayForward,
  type SourceConfig,
} from '@queuebox/core';

/**
 * What the relay writes for one claimed inbox row (spec §8.3): the rendered topic and the outbox
 * row. Pure, so the mapping is tested without a database.
 */

/** The four headers only the relay sets; a received header of the same name is dropped. */
export const RELAY_HEADERS = [
  RELAYED_ROW_HEADER,
  'x-source',
  'x-idempotency-key',
  CORRELATION_ID_HEADER,
] as const;
const RELAY_HEADERS_LOWER = new Set(RELAY_HEADERS.map((name) => name.toLowerCase()));

/** The template of a source that is not (or no longer) configured. */
export const FALLBACK_TOPIC_TEMPLATE = '{{ eventType }}';

/** The rendered, trimmed topic; empty means the row can reach no destination. */
export function relayTopic(
  message: RelayClaimedMessage,
  sources: Readonly<Record<string, SourceConfig>>,
): string {
  // Own keys only: a row whose source is named `constructor` must not find Object's.
  const template = Object.hasOwn(sources, message.source)
    ? (sources[message.source]?.topic ?? FALLBACK_TOPIC_TEMPLATE)
    : FALLBACK_TOPIC_TEMPLATE;
  return renderSourceTopic(template, { source: message.source, eventType: message.eventType });
}

/**
 * The inbox headers without any key equal (in any letter case) to a relay header, then the
 * relay headers; `X-Correlation-Id` only when the row has a correlation id. A sender therefore
 * cannot set them. The received request's framing and hop-by-hop headers (`Transfer-Encoding`,
 * `Content-Length`, `Host`, `Expect`, ...: core's `framingHeadersOf`) described that request,
 * not the message, so they are not copied either; the inbox row keeps them (spec §7.5).
 */
export function relayHeaders(message: RelayClaimedMessage): Headers {
  const isFraming = framingHeadersOf(message.headers);
  const entries: [string, string][] = Object.entries(message.headers).filter(([name]) => {
    const lower = name.toLowerCase();
    return !RELAY_HEADERS_LOWER.has(lower) && !isFraming(lower);
  });
  entries.push(
    [RELAYED_ROW_HEADER, message.id],
    ['x-source', message.source],
    ['x-idempotency-key', message.idempotencyKey],
  );
  if (message.correlationId !== null && message.correlationId !== '') {
    entries.push([CORRELATION_ID_HEADER, message.correlationId]);
  }
  // fromEntries defines own properties, so a received `__proto__` header stays a plain key.
  return Object.fromEntries(entries);
}

export function relayForward(
  message: RelayClaimedMessage,
  topic: string,
  maxAttempts: number,
): RelayForward {
  return {
    fence: { id: message.id, claimToken: message.claimToken },
    outbox: {
      // A new id: the outbox message is a new message (X-Message-Id differs from x-inbox-id).
      id: randomUUID(),
      topic,
      key: message.aggregateId,
      headers: relayHeaders(message),
      maxAttempts,
    },
  };
}
