/** `type: rabbitmq` destinations (spec §6.2). */
import * as v from 'valibot';
import { amqpUri, notBlank } from '../checks.js';
import { oneOf, optStr, str, text } from '../scalars.js';
import { addressFrom, destinationCommon } from './common.js';

export const rabbitmqDestination = {
  url: v.pipe(text, amqpUri),
  // Optional here because `exchangeFrom` wins; "one of the two" is a destination rule.
  exchange: optStr(),
  exchangeFrom: addressFrom(),
  exchangeType: v.optional(v.pipe(text, notBlank), 'topic'),
  routingKeyTemplate: str('{{ topic }}'),
  deliveryMode: oneOf(['persistent', 'transient'], 'persistent'),
  ...destinationCommon,
};
