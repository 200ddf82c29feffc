/**
 * The inbox store contract, relay half: the batched relay claim (spec §8.2 with the guarantee of
 * §8.4) and its fenced writes, forward, dead marks, renewals, reclaim and the oldest-pending gauge
 * (spec §8.3). How an adapter serialises claims across replicas (PostgreSQL: the reference's
 * advisory lock) is its own test.
 */
import { afterAll, beforeAll, beforeEach, describe } from 'vitest';
import type { InboxHarness } from './inbox-store-contract.js';
import { skipTitle, type ContractTarget } from './probe.js';
import { relayClaimCases } from './relay-claim-cases.js';
import { RELAY_EPOCH, type RelayCase } from './relay-case.js';
import { relayForwardCases } from './relay-forward-cases.js';
import { setClock } from './test-clock.js';

export function relayContract(target: ContractTarget<InboxHarness>): void {
  const title = `relay contract: ${target.label}`;
  describe.skipIf(Boolean(target.skip))(skipTitle(title, target.skip), () => {
    const t = { clock: setClock(RELAY_EPOCH) } as RelayCase;

    beforeAll(async () => {
      t.harness = await target.open();
      t.probe = t.harness.probe;
      t.store = t.harness.store(t.clock);
    });

    afterAll(async () => {
      await t.harness?.drop();
    });

    beforeEach(async () => {
      t.clock.set(RELAY_EPOCH);
      await t.probe.clear();
    });

    relayClaimCases(t);
    relayForwardCases(t);
  });
}
