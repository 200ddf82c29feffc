import { describe, expect, it } from 'vitest';
import type { AppConfig } from '../config/app-config.js';
import { silentLogger } from '../ports/logger.js';
import { publishFailed, type PublishRequest } from '../ports/publisher.js';
import { JsonPayload } from '../json-payload.js';
import { linkPublisher, payloadBuffer } from './destination-publisher.js';

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

describe('payloadBuffer', () => {
  it('hands over the bytes a store read as they are, and a text as its UTF-8', () => {
    const stored = Buffer.from('{"n":18446744073709551616,"s":"\u00e9\u4e2d\ud83d\ude00"}', 'utf8');
    expect(payloadBuffer(JsonPayload.fromBytes(stored))).toBe(stored);

    const view = new Uint8Array(stored.buffer, stored.byteOffset, stored.byteLength);
    const wrapped = payloadBuffer(JsonPayload.fromBytes(view));
    expect(Buffer.isBuffer(wrapped)).toBe(true);
    expect(wrapped.buffer).toBe(stored.buffer);
    expect(wrapped.byteOffset).toBe(stored.byteOffset);
    expect(wrapped.equals(stored)).toBe(true);

    const text = stored.toString('utf8');
    expect(payloadBuffer(JsonPayload.fromText(text)).equals(stored)).toBe(true);
  });
});
