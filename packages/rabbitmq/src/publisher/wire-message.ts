/**
 * The AMQP properties of one publish (spec §6.2): `message_id` = row id, `content_type`
 * `application/json`, the delivery mode, and a header table of `x-topic` (string) and `x-attempt`
 * (a 32-bit integer, as the reference's Java client wrote it), the destination's static headers
 * and the row's headers.
 *
 * Precedence: on an application's row the row is the last writer, so it may replace a static
 * header; on a row the relay wrote (it carries `x-inbox-id`) static headers win over the row's
 * (core's `mergeCustomHeaders`; docs/decisions.md). Static and row headers are merged by
 * lower-case name among themselves, as on every destination type. `x-topic` and `x-attempt` are
 * QueueBox's own on every row (core's `OwnedHeader`): the merge drops a row's or a static copy in
 * any letter case, so a row's `X-Topic` is neither a second entry nor a replacement (the reference
 * let a row replace them in its shared table). `x-message-id` and `x-message-key` are owned too:
 * AMQP carries the id as `message_id` and the key in the routing key, and a row's copy of either
 * header is dropped all the same, so no header beside `message_id` names another id.
 *
 * amqplib encodes the table into a 64 KiB scratch buffer after it has already queued the
 * publish's confirm callback, so a header it cannot encode would misalign every later confirm
 * on the channel. Nothing that can fail the encoding reaches it: a name longer than an AMQP
 * short string (255 bytes) is left out and reported, and a table too large for the buffer fails
 * its own message before the publish.
 */
import {
  BrokerHeader,
  customHeaders,
  hasRowHeaders,
  isOwnedHeader,
  staticHeaderMap as carriedStaticHeaders,
  TRACE_HEADERS,
  type HeaderEntry,
  type HeaderMap,
  type OutboxMessage,
  setOwn,
} from '@queuebox/core';
import type { Options } from 'amqplib';

/** The longest AMQP short string in bytes: table keys, exchange names, routing keys. */
export const MAX_SHORT_STRING_BYTES = 255;

/**
 * The largest header table sent, in encoded bytes. amqplib's scratch buffer for the properties
 * is 65,536 bytes; the other properties take well under 1,000.
 */
export const MAX_HEADER_TABLE_BYTES = 64_000;

const TOPIC = BrokerHeader.topic;
const ATTEMPT = BrokerHeader.attempt;
/** Key length byte, key, `I` tag, 4-byte signed integer. */
const ATTEMPT_SIZE = 1 + ATTEMPT.length + 1 + 4;

export type DeliveryModeNumber = 1 | 2;

export type WireProperties =
  | {
      readonly ok: true;
      readonly options: Options.Publish & { readonly messageId: string };
      /** Row header names that cannot be sent (longer than a short string), or null. */
      readonly unsent: string[] | null;
    }
  | { readonly ok: false; readonly error: string };

/** A destination's static headers keyed by lower-case name; names AMQP cannot carry are skipped. */
export function staticHeaderMap(headers: Readonly<Record<string, string>>): HeaderMap {
  return carriedStaticHeaders(headers, fitsShortString);
}

export function wireProperties(
  message: OutboxMessage,
  staticHeaders: HeaderMap,
  deliveryMode: DeliveryModeNumber,
  /** The publish span's context while tracing is on: it replaces every other copy. */
  trace?: readonly HeaderEntry[],
): WireProperties {
  const table: Record<string, unknown> = {};
  setOwn(table, TOPIC, message.topic);
  setOwn(table, ATTEMPT, { '!': 'int', value: message.attempt });
  let bytes = entrySize(TOPIC, message.topic) + ATTEMPT_SIZE;
  let unsent: string[] | null = null;
  if (trace === undefined && !hasRowHeaders(message.headers)) {
    // Most rows name no header: theirs are the destination's static ones, sized once, with no
    // merge map per message.
    const statics = staticEntries(staticHeaders);
    for (const [name, value] of statics.entries) setOwn(table, name, value);
    bytes += statics.bytes;
  } else {
    const custom = customHeaders(
      message,
      staticHeaders,
      fitsShortString,
      trace === undefined ? undefined : TRACE_HEADERS,
    );
    unsent = custom.unsent;
    for (const [name, value] of custom.headers.values()) {
      setOwn(table, name, value);
      bytes += entrySize(name, value);
    }
    if (trace !== undefined)
      for (const [name, value] of trace) {
        setOwn(table, name, value);
        bytes += entrySize(name, value);
      }
  }
  if (bytes > MAX_HEADER_TABLE_BYTES) {
    return {
      ok: false,
      error: `The headers of message ${message.id} take ${bytes} bytes, more than the ${MAX_HEADER_TABLE_BYTES} an AMQP header table can carry here`,
    };
  }
  return {
    ok: true,
    options: {
      mandatory: true,
      messageId: message.id,
      contentType: 'application/json',
      deliveryMode,
      headers: table,
    },
    unsent,
  };
}

interface StaticEntries {
  readonly entries: readonly HeaderEntry[];
  /** Their encoded size in the table. */
  readonly bytes: number;
}

const staticTables = new WeakMap<HeaderMap, StaticEntries>();

/**
 * A destination's static headers as a row without headers of its own sends them: what the merge
 * makes of them with an empty row (owned names dropped, the map's order), computed once per map.
 */
function staticEntries(staticHeaders: HeaderMap): StaticEntries {
  let statics = staticTables.get(staticHeaders);
  if (statics === undefined) {
    const entries = [...staticHeaders.values()].filter(([name]) => !isOwnedHeader(name));
    const bytes = entries.reduce((sum, [name, value]) => sum + entrySize(name, value), 0);
    statics = { entries, bytes };
    staticTables.set(staticHeaders, statics);
  }
  return statics;
}

export function fitsShortString(text: string): boolean {
  // A UTF-16 unit takes at most 3 UTF-8 bytes, so short texts need no count.
  return text.length * 3 <= MAX_SHORT_STRING_BYTES || byteLength(text) <= MAX_SHORT_STRING_BYTES;
}

export function byteLength(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/** Key length byte, key, type tag, 4-byte length, value. */
function entrySize(name: string, value: string): number {
  return 1 + byteLength(name) + 5 + byteLength(value);
}
