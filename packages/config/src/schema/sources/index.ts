/**
 * `sources.<name>` (spec §7): `type` defaults to `http`. A new kind is one file beside these and
 * one line here (and its rules in `rules/sources.ts`).
 */
import { kinded, mapOf } from '../kit.js';
import { httpSource } from './http.js';
import { kafkaSource } from './kafka.js';
import { natsSource } from './nats.js';
import { rabbitmqSource } from './rabbitmq.js';

export const sourceKinds = {
  http: httpSource,
  rabbitmq: rabbitmqSource,
  kafka: kafkaSource,
  nats: natsSource,
};

export const sourceSchema = kinded(sourceKinds, 'http');
export const sourcesMap = mapOf(sourceSchema);
