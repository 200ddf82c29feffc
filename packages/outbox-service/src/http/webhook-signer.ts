/**
 * Standard Webhooks signing of an HTTP destination (`destinations.<name>.signing`): a receiver
 * behind QueueBox cannot check the original sender's signature (the inbox stores the payload as
 * JSON, so the forwarded body has other bytes), so QueueBox signs what it sends. The signed
 * content is `<webhook-id>.<webhook-timestamp>.<body>`, the body being the exact text sent (after
 * any transform); the key is the base64 after `whsec_`. Each attempt is signed anew, so a retry
 * hours later carries a timestamp the receiver's tolerance accepts.
 */
import { createHmac } from 'node:crypto';
import { SigningHeader, systemClock, type Clock, type SigningConfig } from '@queuebox/core';

/** Appends the three signing headers to a flat undici header list. */
export type WebhookSigner = (id: string, body: string | Uint8Array, list: string[]) => void;

const PREFIX = 'whsec_';

/** The HMAC key of a Standard Webhooks secret: the base64 after the optional `whsec_` prefix. */
export function signingKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64');
}

/** `v1,<base64>` for one key over `id.timestamp.body`; a text body is signed as its UTF-8. */
export function webhookSignature(
  key: Buffer,
  id: string,
  timestamp: string,
  body: string | Uint8Array,
): string {
  const mac = createHmac('sha256', key).update(`${id}.${timestamp}.`, 'utf8');
  if (typeof body === 'string') mac.update(body, 'utf8');
  else mac.update(body);
  return `v1,${mac.digest('base64')}`;
}

export function createWebhookSigner(
  config: SigningConfig,
  clock: Clock = systemClock,
): WebhookSigner {
  const keys = config.secrets.map((secret) => signingKey(secret.reveal()));
  return (id, body, list) => {
    const timestamp = String(Math.floor(clock.now().getTime() / 1000));
    const signatures = keys.map((key) => webhookSignature(key, id, timestamp, body));
    list.push(
      SigningHeader.id,
      id,
      SigningHeader.timestamp,
      timestamp,
      SigningHeader.signature,
      signatures.join(' '),
    );
  };
}
