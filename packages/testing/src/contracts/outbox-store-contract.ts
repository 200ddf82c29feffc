/**
 * The outbox store contract (spec §4.2, §4.4, §4.1 step 7, §11.6): what every OutboxStore must do,
 * whatever its database. A dialect runs it once per table layout (the default tables, and every
 * table and column renamed), with a harness that builds its adapter and a probe that sees its rows.
 * Rules that only one engine can show (plans, row versions, commit settings) stay beside that
 * adapter.
 */
import { afterAll, beforeAll, beforeEach, describe } from 'vitest';
import { outboxClaimCases } from './outbox-store-claim.js';
import { outboxConcurrencyCases } from './outbox-store-concurrency.js';
import { outboxFenceCases } from './outbox-store-fence.js';
import { outboxKeyOrderCases } from './outbox-store-key-order.js';
import { outboxReplayCases } from './outbox-store-replay.js';
import type { OutboxCase, OutboxHarness } from './outbox-store-case.js';
import { skipTitle, type ContractTarget } from './probe.js';
import { TestClock } from './test-clock.js';

export type { OutboxHarness } from './outbox-store-case.js';

export function outboxStoreContract(target: ContractTarget<OutboxHarness>): void {
  const title = `outbox store contract: ${target.label}`;
  describe.skipIf(Boolean(target.skip))(skipTitle(title, target.skip), () => {
    const t = {} as OutboxCase;

    beforeAll(async () => {
      t.harness = await target.open();
      t.probe = t.harness.probe;
    });

    afterAll(async () => {
      await t.harness?.drop();
    });

    beforeEach(async () => {
      t.clock = new TestClock();
      t.store = t.harness.store(t.clock);
      await t.probe.clear();
    });

    outboxClaimCases(t);
    outboxKeyOrderCases(t);
    outboxFenceCases(t);
    outboxReplayCases(t);
    outboxConcurrencyCases(t);
  });
}
