/** `type: kafka` sources (spec §7.7). */
import * as v from 'valibot';
import { nonEmptyList, notBlank } from '../checks.js';
import { kafkaSecurity } from '../destinations/kafka.js';
import { int, list, oneOf, text } from '../scalars.js';
import { brokerShared, sourceShared } from './shared.js';

export const kafkaSource = {
  bootstrapServers: v.pipe(text, notBlank),
  topics: v.pipe(list({ splitCommas: true }), nonEmptyList('topic')),
  groupId: v.pipe(text, notBlank),
  autoOffsetReset: oneOf(['earliest', 'latest'], 'earliest'),
  maxPollRecords: int(100, { min: 1 }),
  ...kafkaSecurity,
  ...brokerShared,
  ...sourceShared,
};
