/**
 * The NATS publisher (spec §6.4): one connection per destination name (destination-link.ts) in
 * core's publisher shell, opened by the first publish.
 */
import { linkPublisher } from '@queuebox/core';
import { DestinationLink } from './destination-link.js';

export const createNatsPublisher = linkPublisher('nats', (options) => new DestinationLink(options));
