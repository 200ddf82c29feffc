/** The attributes a source's extraction reads from a received message, HTTP or broker alike. */
export interface ExtractedAttributes {
  readonly idempotencyKey: string;
  readonly aggregateId: string | null;
  readonly eventType: string | null;
  /** Null when the source reads no publish time, or when none of its places held one. */
  readonly publishTime: Date | null;
}
