import type { Json } from './model.js';

/**
 * A payload as it travels through QueueBox: JSON text, parsed only when something needs the
 * value. The outbox sends the text the database holds (every number exactly as `jsonb` keeps
 * it) and the inbox stores the text it received; only a transform reads `value`, because
 * JSONata works on JavaScript values. Parsing for nothing would cost time on the hot path and
 * turn every number into a double (12345678901234567890 → 12345678901234567000).
 *
 * A payload is held in one of two forms. Text (`fromText`, `fromValue`): the text is its one own
 * field. Bytes (`fromBytes`): the UTF-8 bytes a store read, its one own field, handed to a client
 * as they are (`body`) and decoded only when something reads `text`: a claim of hundreds of
 * rows makes no string per payload that the client would encode back to the same bytes. Two
 * payloads of one form are equal (also to vitest's `toEqual`) when their texts, or their bytes,
 * are; the parsed value and the decoded text are private caches.
 */
export abstract class JsonPayload {
  /** JSON text: what is stored and what is sent. */
  abstract readonly text: string;
  /** What a client sends: the bytes as read, or the text (the same UTF-8 on the wire). */
  abstract readonly body: string | Uint8Array;
  #value: Json = null;
  #parsed = false;

  /** Text that is JSON already (the database wrote it, or the inbox validated it). */
  static fromText(text: string): JsonPayload {
    return new TextPayload(text);
  }

  /**
   * The UTF-8 bytes of JSON text that a store read (the database wrote it). The payload keeps
   * the array: the caller hands over bytes that nothing else reuses or changes.
   */
  static fromBytes(bytes: Uint8Array): JsonPayload {
    return new BytesPayload(bytes);
  }

  /**
   * A value a transform or an application made; its text is JSON.stringify's. Throws a
   * RangeError for a structure too deep to serialise and a TypeError for a BigInt or a cycle.
   */
  static fromValue(value: Json): JsonPayload {
    const payload = new TextPayload(JSON.stringify(value));
    payload.#value = value;
    payload.#parsed = true;
    return payload;
  }

  /** The parsed value (numbers as doubles), parsed on first use. */
  get value(): Json {
    if (!this.#parsed) {
      this.#value = JSON.parse(this.text) as Json;
      this.#parsed = true;
    }
    return this.#value;
  }
}

class TextPayload extends JsonPayload {
  readonly text: string;

  constructor(text: string) {
    super();
    this.text = text;
  }

  get body(): string {
    return this.text;
  }
}

// `ignoreBOM`: a leading U+FEFF stays in the text, as it was in the bytes.
const utf8 = new TextDecoder('utf-8', { ignoreBOM: true });

class BytesPayload extends JsonPayload {
  readonly bytes: Uint8Array;
  #text: string | null = null;

  constructor(bytes: Uint8Array) {
    super();
    this.bytes = bytes;
  }

  get text(): string {
    this.#text ??= utf8.decode(this.bytes);
    return this.#text;
  }

  get body(): Uint8Array {
    return this.bytes;
  }
}
