/** `type: rabbitmq` sources (spec §7.6). */
import * as v from 'valibot';
import { amqpUri, notBlank } from '../checks.js';
import { bool, int, text } from '../scalars.js';
import { brokerShared, sourceShared } from './shared.js';

export const rabbitmqSource = {
  queueName: v.pipe(text, notBlank),
  connectionUrl: v.pipe(text, amqpUri),
  prefetchCount: int(10, { min: 1 }),
  declareQueue: bool(false),
  ...brokerShared,
  ...sourceShared,
};
