/**
 * What the inbox side reads of one Kafka record (spec §7.2 Kafka column, §7.7): the value as
 * received (a tombstone's null value is an empty body, stored dead as not JSON), the headers as
 * text, and the record's own attributes as fallbacks: the key (non-blank) after header,
 * expression and path for the idempotency key and the aggregate id, and the record timestamp for
 * the publish time.
 *
 * Headers: a value that is UTF-8 is its text; other bytes go as `base64:<b64>`, so a binary
 * header is stored without loss; a repeated name keeps its last value (the reference's
 * `lastHeader`); a header without a value is dropped. The key is read as UTF-8 text as the
 * reference's string deserializer did (bytes that are not UTF-8 become U+FFFD).
 */
import { setOwn } from '@queuebox/core';
import type { SourceDelivery } from '@queuebox/core';
import type { KafkaMessage } from '../kafkajs.js';

// `fatal`: a byte sequence that is not UTF-8 throws, and then the bytes go as base64.
const DECODER = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const EMPTY = new Uint8Array(0);

export function recordDelivery(message: KafkaMessage): SourceDelivery {
  const fallbacks: {
    -readonly [K in keyof SourceDelivery['fallbacks']]: SourceDelivery['fallbacks'][K];
  } = {};
  const key = message.key === null || message.key === undefined ? '' : message.key.toString('utf8');
  if (key.trim() !== '') {
    fallbacks.idempotencyKey = key;
    fallbacks.aggregateId = key;
  }
  const time = publishTime(message.timestamp);
  if (time !== undefined) fallbacks.publishTime = time;
  return {
    body: message.value ?? EMPTY,
    headers: convertHeaders(message.headers),
    fallbacks,
  };
}

export function convertHeaders(headers: KafkaMessage['headers']): Record<string, string> {
  const converted: Record<string, string> = {};
  if (headers === undefined || headers === null) return converted;
  for (const name of Object.keys(headers)) {
    const values = [headers[name]].flat();
    const last = values.at(-1);
    if (last === undefined || last === null) continue;
    setOwn(converted, name, typeof last === 'string' ? last : bytesText(last));
  }
  return converted;
}

export function bytesText(bytes: Uint8Array): string {
  try {
    return DECODER.decode(bytes);
  } catch {
    return `base64:${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64')}`;
  }
}

/** The record timestamp (epoch milliseconds as text); none when missing or not a time. */
function publishTime(timestamp: string | undefined): Date | undefined {
  if (timestamp === undefined || !/^\d+$/.test(timestamp)) return undefined;
  const time = new Date(Number(timestamp));
  return Number.isNaN(time.getTime()) || time.getTime() <= 0 ? undefined : time;
}
