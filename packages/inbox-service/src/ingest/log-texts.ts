/**
 * Operator-facing texts of the inbox ingest path (spec §15). Operators grep and alert on these,
 * so the wording is stable; tests pin it. Every `reason` is sanitized by the caller, and no text
 * carries a header value or a credential.
 */
export const ingestLogTexts = {
  /** The reference's wording; `tried` names the header, expression and paths. */
  keyMissing: (tried: string, source: string) =>
    `The idempotency key ${tried} of source '${source}' matched nothing. The message is rejected with 400.`,
  filtered: (source: string, rule: string) =>
    `Source '${source}' dropped a message because it failed the header filter rule ${rule}.`,
  authFailed: (source: string, reason: string) =>
    `A request to source '${source}' failed authentication: ${reason}.`,
  invalidJson: (source: string) =>
    `A request to source '${source}' does not carry a JSON body. It is rejected with 400.`,
  /** `reason` is a validation text: it names a field or a header, never a value. */
  refused: (source: string, reason: string) =>
    `A request to source '${source}' carries a message that cannot be stored as it came. It is rejected with 400. Reason: ${reason}`,
  attributeRefused: (source: string, reason: string) =>
    `A message of source '${source}' has an attribute that cannot be stored. The message is rejected with 400. Reason: ${reason}`,
  transformRejected: (source: string, strategy: string, reason: string) =>
    `The transform of source '${source}' failed (onError ${strategy}). The message is rejected with 422. Reason: ${reason}`,
  transformSkipped: (source: string, reason: string) =>
    `The transform of source '${source}' failed (onError Skip). The received body is stored unchanged. Reason: ${reason}`,
  storeFailed: (source: string, reason: string) =>
    `Storing a message of source '${source}' failed. The sender gets 500 and may resend it. Reason: ${reason}`,
} as const;
