/**
 * `destinations.<name>` (spec §6): `type` is required and selects the keys. A new type is one
 * file beside these and one line here (and its rules in `rules/destinations.ts`).
 */
import { kinded, mapOf } from '../kit.js';
import { httpDestination } from './http.js';
import { kafkaDestination } from './kafka.js';
import { natsDestination } from './nats.js';
import { rabbitmqDestination } from './rabbitmq.js';

export const destinationKinds = {
  http: httpDestination,
  rabbitmq: rabbitmqDestination,
  kafka: kafkaDestination,
  nats: natsDestination,
};

export const destinationSchema = kinded(destinationKinds);
export const destinationsMap = mapOf(destinationSchema);
