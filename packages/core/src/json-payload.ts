import type { Json } from './model.js';

/**
 * A payload as it travels through QueueBox: JSON text, parsed only when something needs the
 * value. The outbox sends the text the database holds (every number exactly as `jsonb` keeps
 * it) and the inbox stores the text it received; only a transform reads `value`, because
 * JSONata works on JavaScript values. Parsing for nothing would cost time on the hot path and
 * turn every number into a double (12345678901234567890 → 12345678901234567000).
 *
 * Two payloads are equal (also to vitest's `toEqual`) when their texts are: the text is the one
 * own field, the parsed value a private cache.
 */
export class JsonPayload {
  /** JSON text: what is stored and what is sent. */
  readonly text: string;
  #value: Json;
  #parsed: boolean;

  private constructor(text: string, value: Json, parsed: boolean) {
    this.text = text;
    this.#value = value;
    this.#parsed = parsed;
  }

  /** Text that is JSON already (the database wrote it, or the inbox validated it). */
  static fromText(text: string): JsonPayload {
    return new JsonPayload(text, null, false);
  }

  /**
   * A value a transform or an application made; its text is JSON.stringify's. Throws a
   * RangeError for a structure too deep to serialise and a TypeError for a BigInt or a cycle.
   */
  static fromValue(value: Json): JsonPayload {
    return new JsonPayload(JSON.stringify(value), value, true);
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
