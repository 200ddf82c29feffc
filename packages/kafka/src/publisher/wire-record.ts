/**
 * The Kafka record of one publish (spec §6.3): the topic the router resolved, the record key, the
 * payload as the bytes the store read (the stored text as it is, so no number passes through a
 * double, and no string is made of it), and the headers: static and row headers, then
 * `x-message-id`, `x-topic` and `x-attempt` as UTF-8 strings, appended.
 *
 * Record key: a route's `routingKeyTemplate` wins (the router hands its rendering over as the
 * routing key); otherwise the destination's `keyTemplate`. Blank either way means no key, so
 * the default partitioner spreads the record instead of hashing an empty key to one partition.
 *
 * Headers follow the other publishers: static and row headers merge by lower-case name (core's
 * `mergeCustomHeaders`), a row's value that is not a JSON string goes as its JSON text, and a
 * `headers` column that is not an object names nothing. On a row the relay wrote (`x-inbox-id`),
 * static headers win. The standard headers are QueueBox's own (core's `OwnedHeader`): the merge
 * drops a row's or a static copy of them, in any letter case and on every row, so each goes once
 * with QueueBox's value although a Kafka header list could hold several (the reference appended
 * beside a row's copy; docs/decisions.md). `x-message-key` is owned too: the key travels as the
 * record key, and a row's copy of the header is dropped all the same.
 */
import {
  BrokerHeader,
  customHeaders,
  hasRowHeaders,
  payloadBuffer,
  putOwnedHeaders,
  TRACE_HEADERS,
  type HeaderEntry,
  sanitize,
  type HeaderMap,
  type OutboxMessage,
  type PublishRequest,
  setOwn,
} from '@queuebox/core';
import type { IHeaders, Message } from '../kafkajs.js';
import { renderKafkaKey } from './key-template.js';

/** A destination's static headers keyed by lower-case name, as core's merge takes them. */
export { staticHeaderMap } from '@queuebox/core';

/** Kafka's own rule for topic names (`Topic.validate`): 1 to 249 of these characters. */
const TOPIC_NAME = /^[a-zA-Z0-9._-]{1,249}$/;

/** Bytes a record takes beside its key, value and headers (lengths, attributes, varints). */
const RECORD_OVERHEAD = 24;
const HEADER_OVERHEAD = 4;

export interface WireRecord {
  readonly topic: string;
  readonly message: Message;
  /** About what the record takes in a record batch, to bound one sendBatch. */
  readonly bytes: number;
}

export type WireResult =
  | { readonly ok: true; readonly record: WireRecord }
  | { readonly ok: false; readonly error: string };

/** Why a topic cannot be produced to, or null when Kafka takes the name. */
export function topicProblem(topic: string): string | null {
  if (TOPIC_NAME.test(topic) && topic !== '.' && topic !== '..') return null;
  const shown = sanitize(topic.slice(0, 80));
  return `Publish failed: '${shown}' is not a Kafka topic name (1 to 249 of a-z, A-Z, 0-9, '.', '_' and '-')`;
}

/** The record key: the route's routing key when it set one, else the `keyTemplate`; blank = none. */
export function recordKey(
  routingKey: string | null,
  keyTemplate: string,
  message: Pick<OutboxMessage, 'topic' | 'key'>,
): string | null {
  if (routingKey !== null) return routingKey.trim() === '' ? null : routingKey;
  return renderKafkaKey(keyTemplate, { topic: message.topic, key: message.key });
}

export function wireRecord(
  request: Pick<PublishRequest, 'message' | 'payload' | 'routingKey' | 'address' | 'traceHeaders'>,
  keyTemplate: string,
  staticHeaders: HeaderMap,
): WireResult {
  const { message } = request;
  const topic = request.address ?? '';
  // The router fails a blank address before the publisher; this guards a direct caller.
  if (topic.trim() === '') {
    return {
      ok: false,
      error: 'Publish failed: the destination resolved no topic for this message',
    };
  }
  const problem = topicProblem(topic);
  if (problem !== null) return { ok: false, error: problem };
  const key = recordKey(request.routingKey, keyTemplate, message);
  const value = payloadBuffer(request.payload);
  const { headers, bytes } = recordHeaders(message, staticHeaders, request.traceHeaders);
  return {
    ok: true,
    record: {
      topic,
      message: { key, value, headers },
      bytes: RECORD_OVERHEAD + value.length + (key === null ? 0 : byteLength(key)) + bytes,
    },
  };
}

/** The headers in wire order, and the bytes they take. */
export function recordHeaders(
  message: OutboxMessage,
  staticHeaders: HeaderMap,
  /** The publish span's context while tracing is on: it replaces every other copy. */
  trace?: readonly HeaderEntry[],
): { headers: IHeaders; bytes: number } {
  if (trace === undefined && staticHeaders.size === 0 && !hasRowHeaders(message.headers))
    return ownedOnly(message);
  const alsoOwned = trace === undefined ? undefined : TRACE_HEADERS;
  const custom = customHeaders(message, staticHeaders, undefined, alsoOwned).headers;

  const headers: IHeaders = {};
  let bytes = 0;
  const append = (name: string, value: string) => {
    bytes += HEADER_OVERHEAD + byteLength(name) + byteLength(value);
    const present = Object.hasOwn(headers, name) ? headers[name] : undefined;
    // A repeated name becomes a list: kafkajs writes one header per entry, in this order.
    const next = present === undefined ? value : [...[present].flat(), value];
    setOwn(headers, name, next);
  };
  for (const [name, value] of custom.values()) append(name, value);
  if (trace !== undefined) for (const [name, value] of trace) append(name, value);
  // The key travels as the record key.
  putOwnedHeaders(message, false, append);
  return { headers, bytes };
}

/** The usual row (no static or row headers): QueueBox's three, made without the merge. */
function ownedOnly(message: OutboxMessage): { headers: IHeaders; bytes: number } {
  const attempt = String(message.attempt);
  return {
    headers: {
      [BrokerHeader.messageId]: message.id,
      [BrokerHeader.topic]: message.topic,
      [BrokerHeader.attempt]: attempt,
    },
    bytes: OWNED_NAME_BYTES + byteLength(message.id) + byteLength(message.topic) + attempt.length,
  };
}

/** The three names and their per-header overhead. */
const OWNED_NAME_BYTES =
  3 * HEADER_OVERHEAD +
  BrokerHeader.messageId.length +
  BrokerHeader.topic.length +
  BrokerHeader.attempt.length;

function byteLength(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}
