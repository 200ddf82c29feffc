/**
 * What QueueBox knows of the common webhook senders whose own signature schemes an HTTP source
 * verifies (`auth.type`): the headers that carry the signature, which are never stored, like
 * every header source auth reads (spec §16.1), and where the sender puts the event's own id,
 * the idempotency key when the source names none (each sender retries with the same id).
 */
export type SenderScheme = 'standard-webhooks' | 'stripe' | 'github' | 'shopify';

export interface SenderSchemeFacts {
  /** Lower-case header names that carry a signature. */
  readonly signatureHeaders: readonly string[];
  /** Where the event id is: a request header or a JSONPath in the body; null when none is sent. */
  readonly eventId: { readonly header: string } | { readonly path: string } | null;
}

export const SENDER_SCHEMES: Readonly<Record<SenderScheme, SenderSchemeFacts>> = {
  'standard-webhooks': {
    signatureHeaders: ['webhook-signature'],
    eventId: { header: 'webhook-id' },
  },
  // Stripe retries an event with the same `evt_...` id in the body.
  stripe: { signatureHeaders: ['stripe-signature'], eventId: { path: '$.id' } },
  // GitHub sends the SHA-1 signature beside the SHA-256 one when a secret is set.
  github: {
    signatureHeaders: ['x-hub-signature-256', 'x-hub-signature'],
    eventId: { header: 'X-GitHub-Delivery' },
  },
  shopify: { signatureHeaders: ['x-shopify-hmac-sha256'], eventId: null },
};

/** The facts of an `auth.type`, or undefined for the generic kinds (bearer, api-key, hmac). */
export function senderScheme(type: string): SenderSchemeFacts | undefined {
  return Object.hasOwn(SENDER_SCHEMES, type) ? SENDER_SCHEMES[type as SenderScheme] : undefined;
}
