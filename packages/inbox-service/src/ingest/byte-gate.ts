/**
 * Bounds the body bytes one broker source works on at once. Reading a body as JSON costs several
 * times its size (the text, the parsed value, the statement's parameters), so a prefetch window of
 * large messages handled together took the process's memory far past their size. A message waits
 * here until the bytes already being worked on leave room for it; one message is always let in, so
 * a body larger than the whole budget is still handled (alone).
 */
export class ByteGate {
  readonly #limit: number;
  #inUse = 0;
  readonly #waiting: { readonly bytes: number; readonly enter: () => void }[] = [];

  constructor(limitBytes: number) {
    this.#limit = limitBytes;
  }

  /** Runs `work` once `bytes` fit in the budget (at once when nothing else runs). */
  async run<T>(bytes: number, work: () => Promise<T>): Promise<T> {
    if (!this.#fits(bytes) || this.#waiting.length > 0) {
      await new Promise<void>((enter) => this.#waiting.push({ bytes, enter }));
    } else {
      this.#inUse += bytes;
    }
    try {
      return await work();
    } finally {
      this.#inUse -= bytes;
      this.#admit();
    }
  }

  #fits(bytes: number): boolean {
    return this.#inUse === 0 || this.#inUse + bytes <= this.#limit;
  }

  /** In arrival order: a large message is not passed over for ever by small ones. */
  #admit(): void {
    while (this.#waiting.length > 0 && this.#fits(this.#waiting[0]!.bytes)) {
      const next = this.#waiting.shift()!;
      this.#inUse += next.bytes;
      next.enter();
    }
  }
}
