/**
 * The headers QueueBox owns on the wire: it sets them on every publish, on every destination
 * type, and nobody else may. A receiver deduplicates on the message id and trusts the topic and
 * the attempt count, so a second copy beside QueueBox's (a row header, a static header, an auth
 * header of the same name, in any letter case) would let a row's writer, or a webhook sender
 * through the relay, choose what the receiver reads. Every publisher therefore drops those
 * copies (core's `mergeCustomHeaders` does it for all of them) and sends its own value once.
 *
 * The names are case-insensitive. Each transport writes them in its own spelling (HTTP
 * `X-Message-Id`; the brokers `x-message-id`, or a message-id property of the protocol), and a
 * transport that carries one elsewhere (such a property, a record key) still drops a row's copy,
 * so the name means the same thing on every destination.
 *
 * A header QueueBox starts to set later joins the list here, and every publisher and the
 * configuration check follow. Two lists are owned only where a feature is on: the signing headers
 * below (a signing destination) and the W3C trace headers (`trace-context.ts`, while tracing is
 * on), which a publisher drops from the merge and sets itself.
 */

/** Each owned header by role, in its HTTP spelling. */
export const OwnedHeader = {
  /** The outbox row id: stable across retries and replays (spec §18.3). */
  messageId: 'X-Message-Id',
  topic: 'X-Topic',
  /** The row's attempt, 0 on the first delivery. */
  attempt: 'X-Attempt',
  /** The row's key, sent only when the row has one. */
  messageKey: 'X-Message-Key',
} as const;

/**
 * The Standard Webhooks headers, owned on an HTTP destination that signs (`signing`): a row's,
 * a static or an auth copy of them would sit beside the signature QueueBox computed, and a
 * receiver that reads the other copy would reject every message (or, worse, accept a sender's).
 * Only a signing destination owns them, so a destination without `signing` sends a row's
 * `webhook-id` as it did before.
 */
export const SigningHeader = {
  /** The outbox row id, as `X-Message-Id`. */
  id: 'webhook-id',
  /** Unix seconds when the attempt was signed. */
  timestamp: 'webhook-timestamp',
  /** `v1,<base64>` per secret, space-separated. */
  signature: 'webhook-signature',
} as const;

/** The signing headers, lower-case, as header maps key them. */
export const SIGNING_HEADERS: readonly string[] = Object.freeze(Object.values(SigningHeader));

/** Every owned header, in its HTTP spelling. */
export const OWNED_HEADERS: readonly string[] = Object.freeze(Object.values(OwnedHeader));

const OWNED_LOWER: ReadonlySet<string> = new Set(OWNED_HEADERS.map((name) => name.toLowerCase()));

/** Whether a header name (any letter case) is one QueueBox owns on the wire. */
export function isOwnedHeader(name: string): boolean {
  return OWNED_LOWER.has(name.toLowerCase());
}

/** The owned names in lower case, as header maps key them. */
export function ownedHeaderKeys(): Iterable<string> {
  return OWNED_LOWER;
}

/** Whether a header name (any letter case) is a signing header (owned where a destination signs). */
export function isSigningHeader(name: string): boolean {
  return SIGNING_HEADERS.includes(name.toLowerCase());
}
