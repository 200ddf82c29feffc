import { describe, expect, it } from 'vitest';
import type { Publisher } from '@queuebox/core';
import { PublisherRegistry } from './publisher-registry.js';

function publisher(type: Publisher['type'], destinations: readonly string[]): Publisher {
  return {
    type,
    supports: (destination) => destinations.includes(destination),
    publish: () => Promise.resolve({ ok: true }),
    close: () => Promise.resolve(),
  };
}

describe('PublisherRegistry', () => {
  const http = publisher('http', ['orders', 'shared-name']);
  const rabbit = publisher('rabbitmq', ['events', 'shared-name']);
  const registry = new PublisherRegistry([http, rabbit]);

  it('routes by destination type', () => {
    expect(registry.publisherFor('http', 'orders')).toBe(http);
    expect(registry.publisherFor('rabbitmq', 'events')).toBe(rabbit);
    expect(registry.publisherFor('http', 'shared-name')).toBe(http);
    expect(registry.publisherFor('rabbitmq', 'shared-name')).toBe(rabbit);
  });

  it('has none for a type without a publisher or a destination its publisher does not serve', () => {
    expect(registry.publisherFor('kafka', 'orders')).toBeNull();
    expect(registry.publisherFor('http', 'events')).toBeNull();
  });

  it('lists its types and its publishers', () => {
    expect(registry.types).toEqual(['http', 'rabbitmq']);
    expect([...registry]).toEqual([http, rabbit]);
  });

  it('refuses two publishers of one type', () => {
    expect(() => new PublisherRegistry([http, publisher('http', ['other'])])).toThrow(
      "Two publishers were built for destination type 'http'; each type has one.",
    );
  });
});
