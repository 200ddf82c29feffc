import { QueueBoxError, type DestinationType, type Publisher } from '@queuebox/core';

/**
 * The publishers of one QueueBox, one per destination type (spec §17.1 step 4). The poller finds
 * a row's publisher by the type of its routed destination (§4.3 step 3), so a new broker's
 * publisher is one more entry here, built by the app from the broker's provider.
 */
export class PublisherRegistry implements Iterable<Publisher> {
  readonly #byType = new Map<DestinationType, Publisher>();

  constructor(publishers: Iterable<Publisher>) {
    for (const publisher of publishers) {
      if (this.#byType.has(publisher.type)) {
        throw new QueueBoxError(
          'config_invalid',
          `Two publishers were built for destination type '${publisher.type}'; each type has one.`,
        );
      }
      this.#byType.set(publisher.type, publisher);
    }
  }

  /** The destination types that have a publisher, for the start check of §17.1 step 4. */
  get types(): DestinationType[] {
    return [...this.#byType.keys()];
  }

  /** The publisher of `type` when it serves `destination`; null means "No publisher supports". */
  publisherFor(type: DestinationType, destination: string): Publisher | null {
    const publisher = this.#byType.get(type);
    return publisher?.supports(destination) ? publisher : null;
  }

  [Symbol.iterator](): Iterator<Publisher> {
    return this.#byType.values();
  }
}
