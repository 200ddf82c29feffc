/**
 * One destination's keep-alive sockets: an undici `Pool` that can be swapped and is always
 * closed within a bound.
 *
 * Why swap: when undici refuses to build a request (an argument it will not send), its client
 * reports the failed dispatch as "busy" and the pool marks that connection as needing a drain
 * that never comes, since nothing is in flight on it. Each refusal therefore costs one
 * connection for good; after `connections` of them every message to the destination waits for
 * a socket until it times out. The publisher builds no such request (publish-headers.ts), but
 * if undici refuses one anyway the pool is replaced and the old one retired.
 *
 * Closing is bounded (bounded-close.ts): a retired pool after the destination's timeout, the
 * current one after the grace the publisher gives.
 */
import type { Dispatcher, Pool as UndiciPool } from 'undici';
import { Pool } from './undici-parts.js';
import { closeWithin } from './bounded-close.js';

export class DestinationPool {
  #current: Pool;
  readonly #retired = new Set<Promise<void>>();

  constructor(
    private readonly origin: string,
    private readonly options: UndiciPool.Options,
    /** How long a retired pool may finish its requests before it is destroyed. */
    private readonly retireAfterMs: number,
  ) {
    this.#current = new Pool(origin, options);
  }

  get dispatcher(): Pool {
    return this.#current;
  }

  /**
   * After a request `refusedBy` refused: new requests go to a fresh pool, the old one ends its
   * own. A second refusal by a pool already replaced changes nothing.
   */
  replace(refusedBy: Dispatcher): void {
    const old = this.#current;
    if (refusedBy !== old || old.closed || old.destroyed) return;
    this.#current = new Pool(this.origin, this.options);
    const retiring = closeWithin(old, this.retireAfterMs).finally(() =>
      this.#retired.delete(retiring),
    );
    this.#retired.add(retiring);
  }

  /** Lets requests in flight finish for up to `graceMs`, then destroys what is left. */
  async close(graceMs: number): Promise<void> {
    await Promise.all([closeWithin(this.#current, graceMs), ...this.#retired]);
  }
}
