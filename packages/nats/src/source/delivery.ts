/**
 * What the inbox side reads of one JetStream message (spec §7.2 NATS column, §7.8): the body as
 * it came, the headers with the last value per name, `Nats-Msg-Id` as the idempotency key's
 * fallback (after header, expression and path; before the digest) and the time the stream
 * stored the message as the publish time's fallback.
 */
import { setOwn } from '@queuebox/core';
import type { JsMsg } from '@nats-io/jetstream';
import type { DeliveryFallbacks, SourceDelivery } from '@queuebox/core';

const NATS_MSG_ID = 'nats-msg-id';

export function toSourceDelivery(message: JsMsg): SourceDelivery {
  const headers: Record<string, string> = {};
  let msgId: string | undefined;
  if (message.headers !== undefined) {
    for (const [name, values] of message.headers) {
      const last = values[values.length - 1];
      if (last === undefined) continue;
      setOwn(headers, name, last);
      if (name.toLowerCase() === NATS_MSG_ID && last.trim() !== '') msgId = last.trim();
    }
  }
  const fallbacks: { -readonly [K in keyof DeliveryFallbacks]: DeliveryFallbacks[K] } = {};
  if (msgId !== undefined) fallbacks.idempotencyKey = msgId;
  const storedAt = new Date(Math.floor(message.info.timestampNanos / 1e6));
  if (!Number.isNaN(storedAt.getTime())) fallbacks.publishTime = storedAt;
  return { body: message.data, headers, fallbacks };
}
