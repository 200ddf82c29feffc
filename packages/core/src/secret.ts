const MASK_EMPTY = 'Secret(empty)';
const MASK_SET = 'Secret(***)';

/**
 * A configured credential. Printing, logging or serialising it yields a mask; only `reveal()`
 * gives the value, so a secret never reaches a log line by accident.
 */
export class Secret {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
  }

  reveal(): string {
    return this.#value;
  }

  get isEmpty(): boolean {
    return this.#value.length === 0;
  }

  toString(): string {
    return this.#value.length === 0 ? MASK_EMPTY : MASK_SET;
  }

  toJSON(): string {
    return this.toString();
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return this.toString();
  }
}
