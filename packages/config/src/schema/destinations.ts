/**
 * `destinations.<name>` (spec §6): `type` is required and selects the keys. `http` is written
 * here; a broker's keys come from its package (`BrokerDescriptor.config`), and `destinationCommon`
 * follows them.
 */
import { v, kinded, mapOf } from './kit.js';
import { contributedEntries, type ContributedKind } from './contributed.js';
import {
  circuitBreakerBlock,
  destinationAuthBlock,
  rateLimitBlock,
  signingBlock,
  transformBlock,
} from './blocks.js';
import { headerName, headerValue, noDotSegment, notOwnedHeader } from './checks.js';
import { ms, text, textMap } from './scalars.js';

/** Keys every destination type takes. */
export const destinationCommon = {
  headers: textMap(v.pipe(v.string(), notOwnedHeader)),
  transform: transformBlock,
  rateLimit: rateLimitBlock,
  circuitBreaker: circuitBreakerBlock,
};

export const destinationKinds = {
  // spec §6.1
  http: {
    // The URL rule names where a credential belongs instead, so it is a destination rule.
    baseUrl: text,
    path: v.optional(v.pipe(text, noDotSegment), '/'),
    timeoutMs: ms(30_000),
    auth: destinationAuthBlock,
    signing: signingBlock,
    ...destinationCommon,
    // Each static header goes on every request: one HTTP cannot carry would fail every message.
    headers: textMap(v.pipe(v.string(), headerName), v.pipe(text, headerValue)),
  },
};

export type HttpDestinationEntries = (typeof destinationKinds)['http'];

/** Every destination type: `http` and the kinds the brokers contribute, each with the shared keys. */
export function destinationsMap(brokers: readonly ContributedKind[]) {
  const kinds: Record<string, v.ObjectEntries> = { ...destinationKinds };
  for (const broker of brokers)
    kinds[broker.name] = { ...contributedEntries(broker.block.destination), ...destinationCommon };
  return mapOf(kinded(kinds));
}
