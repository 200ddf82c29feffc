/** `type: nats` destinations (spec §6.4). */
import * as v from 'valibot';
import { notBlank } from '../checks.js';
import { bool, ms, optSecret, optStr, text } from '../scalars.js';
import { addressFrom, destinationCommon } from './common.js';

/** Shared with NATS sources; user name and password go together (destination rules). */
export const natsCredentials = { username: optStr(), password: optSecret(), token: optSecret() };

export const natsDestination = {
  servers: v.pipe(text, notBlank),
  subject: optStr(),
  subjectFrom: addressFrom(),
  jetStream: bool(true),
  timeoutMs: ms(30_000),
  ...natsCredentials,
  ...destinationCommon,
};
