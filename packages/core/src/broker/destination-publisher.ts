/**
 * The shell every publisher shares: one link per destination of its type, made with the
 * publisher (a link connects on its first publish, so a destination no route reaches costs no
 * connection), each publish handed to its destination's link, and `close()` closing every link.
 * The link is the destination's client calls; this is the rest.
 */
import type { AppConfig, DestinationConfig } from '../config/app-config.js';
import type { JsonPayload } from '../json-payload.js';
import type { BrokerDeps, BrokerType } from '../ports/broker.js';
import type { Logger } from '../ports/logger.js';
import {
  publishFailed,
  type PublishOutcome,
  type PublishRequest,
  type Publisher,
} from '../ports/publisher.js';

/** One destination's connection and its publish. */
export interface PublishLink {
  publish(request: PublishRequest): Promise<PublishOutcome>;
  /** Fails what is still in flight and closes the connection; never rejects. */
  close(): Promise<void>;
}

export function destinationPublisher<T extends Publisher['type']>(
  type: T,
  config: Pick<AppConfig, 'destinations'>,
  linkFor: (
    name: string,
    destination: Extract<DestinationConfig, { readonly type: T }>,
  ) => PublishLink,
  /** Runs after every link closed (what the links share, such as a token cache). */
  afterClose?: () => Promise<void>,
): Publisher {
  const links = new Map<string, PublishLink>();
  for (const [name, destination] of Object.entries(config.destinations)) {
    if (destination.type === type)
      links.set(name, linkFor(name, destination as Extract<DestinationConfig, { type: T }>));
  }
  return {
    type,
    supports: (destination) => links.has(destination),
    publish(request: PublishRequest): Promise<PublishOutcome> {
      const link = links.get(request.destination);
      if (link === undefined) {
        return Promise.resolve({
          ok: false,
          error: publishFailed(`No publisher supports destination '${request.destination}'`),
        });
      }
      return link.publish(request);
    },
    async close() {
      await Promise.all([...links.values()].map((link) => link.close()));
      await afterClose?.();
    },
  };
}

/** What a broker's link is made from: its destination, and the publisher's options. */
export type LinkOptions<T extends Publisher['type'], O> = O & {
  readonly name: string;
  readonly config: Extract<DestinationConfig, { readonly type: T }>;
  readonly logger: Logger;
};

/** A broker's publisher factory, from how it makes one destination's link. */
export function linkPublisher<T extends BrokerType, O extends object = object>(
  type: T,
  newLink: (options: LinkOptions<T, O>) => PublishLink,
): (config: Pick<AppConfig, 'destinations'>, deps: BrokerDeps, options?: O) => Publisher {
  return (config, deps, options) =>
    destinationPublisher(type, config, (name, destination) =>
      newLink({ ...(options ?? ({} as O)), name, config: destination, logger: deps.logger }),
    );
}

/**
 * The payload as a broker client takes it (a Buffer): the bytes the store read, as they are (a
 * view, not a copy; the client copies them into its frame), or the text's UTF-8. Reading `text`
 * instead would decode every payload to a string that the client encodes straight back.
 */
export function payloadBuffer(payload: JsonPayload): Buffer {
  const { body } = payload;
  if (typeof body === 'string') return Buffer.from(body, 'utf8');
  return Buffer.isBuffer(body) ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
}
