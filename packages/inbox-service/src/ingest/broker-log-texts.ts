/**
 * Operator-facing texts of the broker ingest path (spec §15), beside the HTTP ones in
 * log-texts.ts: a broker message is never answered, so each text says what became of it. Every
 * `reason` is sanitized by the caller; no text carries a header value or a credential.
 */
export const brokerLogTexts = {
  filtered: (source: string, rule: string) =>
    `Source '${source}' dropped a message because it failed the header filter rule ${rule}.`,
  /** `reason` is a validation text: it names a field or a header, never a value. */
  storedDead: (source: string, reason: string) =>
    `A message of source '${source}' cannot be stored as it came, so it is stored as a dead row and acknowledged. Reason: ${reason}`,
  transformRejected: (source: string, strategy: string, reason: string) =>
    `The transform of source '${source}' failed (onError ${strategy}). The original message is stored as a dead row and acknowledged. Reason: ${reason}`,
  transformSkipped: (source: string, reason: string) =>
    `The transform of source '${source}' failed (onError Skip). The received body is stored unchanged. Reason: ${reason}`,
  storeFailed: (source: string, reason: string) =>
    `Storing a message of source '${source}' failed. The message goes back to the broker and is delivered again. Reason: ${reason}`,
  processingFailed: (source: string, reason: string) =>
    `Handling a message of source '${source}' failed. The message goes back to the broker and is delivered again. Reason: ${reason}`,
} as const;
