/**
 * The pull statements contract (spec §9.1, §9.2): the shipped SQL a pull worker runs (claim,
 * renew, complete, retry, dead), run as a worker runs it, with positional parameters, against
 * the default tables. Each dialect hands in its statements (examples/pull/sql/<dialect>); the
 * messages are stored through its InboxStore, so what the inbox writes is what a worker claims.
 */
import { randomUUID } from 'node:crypto';
import type { NewInboxMessage } from '@queuebox/core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { inboxInsert } from './messages.js';
import { skipTitle, type ContractTarget } from './probe.js';
import { candLimit, pullMessage, type PullCase, type PullHarness } from './pull-statements-case.js';
import { pullConcurrencyCases } from './pull-statements-concurrency.js';
import { inboxRow, storeAll } from './relay-case.js';
import { setClock, sleep } from './test-clock.js';

export type { PulledRow, PullHarness, PullStatements } from './pull-statements-case.js';

export function pullStatementsContract(target: ContractTarget<PullHarness>): void {
  const title = `pull statements contract: ${target.label}`;
  describe.skipIf(Boolean(target.skip))(skipTitle(title, target.skip), () => {
    const t = {} as PullCase;

    beforeAll(async () => {
      t.harness = await target.open();
      t.probe = t.harness.probe;
      t.store = t.harness.store(setClock());
      t.pull = t.harness.pull;
    });

    afterAll(async () => {
      await t.harness?.drop();
    });

    beforeEach(async () => {
      await t.probe.clear();
    });

    pullClaimCases(t);
    pullConcurrencyCases(t);
  });
}

function pullClaimCases(t: PullCase): void {
  const pull = pullMessage;
  const stored = (messages: NewInboxMessage[], initialDelayMs = 0) =>
    storeAll(t.store, messages, initialDelayMs);
  const claim = (source: string, batch: number, leaseMs = 30_000) =>
    t.pull.claim(source, batch, leaseMs, candLimit(batch));
  const ids = (rows: readonly { id: string }[]) => rows.map((r) => r.id);
  const row = (id: string) => inboxRow(t.probe, id);

  it('claims due pull messages of one source with every column and a DB-clock lease', async () => {
    const messages = await stored([pull(), pull({ aggregateId: 'a' }), pull()]);
    await stored([pull({ source: 'payments' }), inboxInsert()]);
    await stored([pull()], 60_000);
    const before = await t.probe.dbNow();
    const claimed = await claim('orders', 10, 45_000);
    expect(ids(claimed)).toEqual(ids(messages));
    for (const r of claimed) {
      expect(r).toMatchObject({
        state: 'processing',
        source: 'orders',
        consumption: 'pull',
        attempt: 0,
        payload: { n: 1 },
      });
      expect(r.claim_token).toMatch(/^[0-9a-f-]{36}$/);
      expect(Object.keys(r)).toEqual(
        expect.arrayContaining(['idempotency_key', 'headers', 'correlation_id', 'event_type']),
      );
      const lease = (r.lease_expires_at as Date).getTime() - before.getTime();
      expect(lease).toBeGreaterThanOrEqual(45_000);
      expect(lease).toBeLessThan(50_000);
    }
    expect(await claim('orders', 10)).toEqual([]);
  });

  it('claims at most `batch` messages, in schedule order', async () => {
    const messages = await stored(Array.from({ length: 5 }, () => pull()));
    expect(ids(await claim('orders', 2))).toEqual(ids(messages.slice(0, 2)));
    expect(ids(await claim('orders', 5))).toEqual(ids(messages.slice(2)));
  });

  it('reserves an aggregate per source: the same aggregate on another source still runs', async () => {
    const [a1, a2] = await stored([pull({ aggregateId: 'A' }), pull({ aggregateId: 'A' })]);
    const [other] = await stored([pull({ aggregateId: 'A', source: 'payments' })]);
    expect(ids(await claim('orders', 10))).toEqual([a1!.id]);
    expect(await claim('orders', 10)).toEqual([]);
    expect(ids(await claim('payments', 10))).toEqual([other!.id]);
    const held = (await row(a1!.id)).claimToken!;
    expect(await t.pull.complete(a1!.id, held)).toBe(1);
    expect(ids(await claim('orders', 10))).toEqual([a2!.id]);
  });

  it('takes over an expired lease with a new token; the old token is fenced out', async () => {
    const [m] = await stored([pull({ aggregateId: 'A' })]);
    const [later] = await stored([pull({ aggregateId: 'A' })]);
    const [first] = await claim('orders', 10, 50);
    await sleep(80);
    // The expired message is the head of its aggregate again; the later one still waits.
    const [second, ...rest] = await claim('orders', 10);
    expect(rest).toEqual([]);
    expect(second!.id).toBe(m!.id);
    expect(second!.claim_token).not.toBe(first!.claim_token);
    expect(await t.pull.complete(m!.id, first!.claim_token)).toBe(0);
    expect(await t.pull.renew(30_000, m!.id, first!.claim_token)).toBe(0);
    expect(await t.pull.complete(m!.id, second!.claim_token)).toBe(1);
    expect(ids(await claim('orders', 10))).toEqual([later!.id]);
  });

  it('renews only under the fence: stale token, expired lease and push rows change nothing', async () => {
    const [a, b] = await stored([pull(), pull()]);
    const [ca, cb] = await claim('orders', 10, 1_000);
    const before = (await row(a!.id)).leaseExpiresAt!;
    expect(await t.pull.renew(60_000, a!.id, ca!.claim_token)).toBe(1);
    expect((await row(a!.id)).leaseExpiresAt!.getTime()).toBeGreaterThan(before.getTime() + 50_000);
    expect(await t.pull.renew(60_000, a!.id, randomUUID())).toBe(0);
    await t.probe.expireInboxLease(b!.id);
    expect(await t.pull.renew(60_000, b!.id, cb!.claim_token)).toBe(0);
    // The fence names consumption: a relay (push) claim with a known token is not a pull claim.
    const [push] = await stored([inboxInsert()]);
    const [relayClaim] = await t.store.claimForRelay(1, 60_000);
    expect(relayClaim!.id).toBe(push!.id);
    expect(await t.pull.renew(60_000, push!.id, relayClaim!.claimToken)).toBe(0);
    expect(await t.pull.complete(push!.id, relayClaim!.claimToken)).toBe(0);
  });

  it('completes under the fence and clears the token and lease', async () => {
    const [m] = await stored([pull()]);
    const [c] = await claim('orders', 1);
    expect(await t.pull.complete(m!.id, randomUUID())).toBe(0);
    expect(await t.pull.complete(m!.id, c!.claim_token)).toBe(1);
    const done = await row(m!.id);
    expect(done).toMatchObject({ state: 'processed', claimToken: null, leaseExpiresAt: null });
    expect(done.processedAt).toBeInstanceOf(Date);
    expect(await t.pull.complete(m!.id, c!.claim_token)).toBe(0);
  });

  it('retries under the fence: attempt + 1, later schedule, last_error, and a later message overtakes', async () => {
    const [m, next] = await stored([pull({ aggregateId: 'A' }), pull({ aggregateId: 'A' })]);
    const [c] = await claim('orders', 1);
    expect(await t.pull.retry(60_000, 'boom', m!.id, randomUUID())).toBe(0);
    const before = await t.probe.dbNow();
    expect(await t.pull.retry(60_000, 'boom', m!.id, c!.claim_token)).toBe(1);
    const retried = await row(m!.id);
    expect(retried).toMatchObject({
      state: 'pending',
      attempt: 1,
      lastError: 'boom',
      claimToken: null,
      leaseExpiresAt: null,
    });
    expect(retried.scheduledAt.getTime()).toBeGreaterThanOrEqual(before.getTime() + 60_000);
    // Not due for a minute: the next message of its aggregate is claimed first (docs/pull.md).
    expect(ids(await claim('orders', 10))).toEqual([next!.id]);
  });

  it('dead-letters under the fence with last_error', async () => {
    const [m] = await stored([pull()]);
    const [c] = await claim('orders', 1);
    expect(await t.pull.dead('gave up', m!.id, randomUUID())).toBe(0);
    expect(await t.pull.dead('gave up', m!.id, c!.claim_token)).toBe(1);
    expect(await row(m!.id)).toMatchObject({
      state: 'dead',
      lastError: 'gave up',
      claimToken: null,
      leaseExpiresAt: null,
    });
    expect(await claim('orders', 10)).toEqual([]);
  });
}
