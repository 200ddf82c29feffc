/**
 * Request drain for graceful shutdown (spec §17.2 step 1): once draining, new requests on the
 * data port get 503; requests already running are counted so shutdown can wait for them.
 */
export class RequestDrain {
  #draining = false;
  #inFlight = 0;
  #idle: (() => void)[] = [];

  get draining(): boolean {
    return this.#draining;
  }

  get inFlight(): number {
    return this.#inFlight;
  }

  enter(): void {
    this.#inFlight += 1;
  }

  leave(): void {
    this.#inFlight -= 1;
    if (this.#inFlight === 0) for (const resolve of this.#idle.splice(0)) resolve();
  }

  /** Starts draining; resolves with the number of requests still running after `timeoutMs`. */
  async drain(timeoutMs: number): Promise<number> {
    this.#draining = true;
    if (this.#inFlight === 0) return 0;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      this.#idle.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
    return this.#inFlight;
  }
}
