/** `type: nats` sources, JetStream only (spec §7.8). */
import * as v from 'valibot';
import { notBlank } from '../checks.js';
import { natsCredentials } from '../destinations/nats.js';
import { int, ms, optStr, text } from '../scalars.js';
import { brokerShared, sourceShared } from './shared.js';

export const natsSource = {
  servers: v.pipe(text, notBlank),
  stream: v.pipe(text, notBlank),
  durable: v.pipe(text, notBlank),
  filterSubject: optStr(),
  ackWaitMs: ms(30_000),
  batchSize: int(100, { min: 1 }),
  ...natsCredentials,
  ...brokerShared,
  ...sourceShared,
};
