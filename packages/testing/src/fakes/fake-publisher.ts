import type { PublishOutcome, PublishRequest, Publisher } from '@queuebox/core';

type PublishBehaviour = (request: PublishRequest) => PublishOutcome | Promise<PublishOutcome>;

/** A publisher that records requests and the largest number of concurrent publishes. */
export class FakePublisher implements Publisher {
  readonly requests: PublishRequest[] = [];
  inFlight = 0;
  maxInFlight = 0;

  constructor(
    readonly type: Publisher['type'] = 'http',
    private readonly destinations: readonly string[] | 'all' = 'all',
    public behaviour: PublishBehaviour = () => ({ ok: true }),
  ) {}

  supports(destination: string): boolean {
    return this.destinations === 'all' || this.destinations.includes(destination);
  }

  async publish(request: PublishRequest): Promise<PublishOutcome> {
    this.requests.push(request);
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      return await this.behaviour(request);
    } finally {
      this.inFlight--;
    }
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
