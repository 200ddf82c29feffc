import { describe, expect, it } from 'vitest';
import type { AppConfig } from '../config/app-config.js';
import { silentLogger } from '../ports/logger.js';
import { publishFailed, type PublishRequest } from '../ports/publisher.js';
import { linkPublisher } from './destination-publisher.js';

const destinations = {
  a: { type: 'nats' },
  b: { type: 'nats' },
  web: { type: 'http' },
} as unknown as AppConfig['destinations'];

describe('linkPublisher', () => {
  it('makes one link per destination of its type, hands each publish to its link, closes them all', async () => {
    const made: string[] = [];
    const closed: string[] = [];
    const create = linkPublisher<'nats', { readonly tag: string }>('nats', (options) => {
      made.push(`${options.name}:${options.tag}`);
      return {
        publish: (request) =>
          Promise.resolve({
            ok: false,
            error: publishFailed(`${options.name} got ${request.message.id}`),
          }),
        close: () => {
          closed.push(options.name);
          return Promise.resolve();
        },
      };
    });
    const publisher = create({ destinations }, { logger: silentLogger }, { tag: 't' });
    expect(made).toEqual(['a:t', 'b:t']);
    expect(publisher.type).toBe('nats');
    expect([publisher.supports('a'), publisher.supports('web')]).toEqual([true, false]);
    const request = (destination: string) =>
      ({ destination, message: { id: 'm1' } }) as unknown as PublishRequest;
    expect(await publisher.publish(request('b'))).toEqual({
      ok: false,
      error: expect.objectContaining({ message: 'b got m1' }) as unknown,
    });
    expect(await publisher.publish(request('web'))).toEqual({
      ok: false,
      error: expect.objectContaining({
        message: "No publisher supports destination 'web'",
      }) as unknown,
    });
    await publisher.close();
    expect(closed).toEqual(['a', 'b']);
  });
});
