import type { SourceConfig } from '@queuebox/core';
import { Counter, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { InboxRelay } from './inbox-relay.js';
import { relayWith, RELAY } from '../../test/relay-harness.js';
import { claimedInboxMessage, recordingLogger, scriptedInboxStore } from '@queuebox/testing';

/** What the relay writes for a claimed batch, and how it counts and logs it (spec §8.3, §14, §15). */
describe('InboxRelay: forwarding a batch', () => {
  it('forwards a claimed batch with one forward call and counts it', async () => {
    const batch = [
      claimedInboxMessage(),
      claimedInboxMessage({ source: 'unknown', eventType: 'evt' }),
      claimedInboxMessage({ correlationId: 'c-1' }),
    ];
    const s = scriptedInboxStore([batch]);
    const { relay, value } = relayWith(s.store);
    await relay.cycle();
    expect(s.forwards).toHaveLength(1);
    const [forwards] = s.forwards;
    expect(forwards!.map((f) => f.fence)).toEqual(
      batch.map((m) => ({ id: m.id, claimToken: m.claimToken })),
    );
    expect(forwards!.map((f) => f.outbox.topic)).toEqual([
      'in.order.created',
      'evt',
      'in.order.created',
    ]);
    expect(forwards![2]!.outbox).toMatchObject({
      key: batch[2]!.aggregateId,
      maxAttempts: 6,
    });
    expect(forwards![2]!.outbox.headers).toMatchObject({
      'x-inbox-id': batch[2]!.id,
      'X-Correlation-Id': 'c-1',
    });
    expect(await value('queuebox_inbox_messages_total', { status: 'forwarded' })).toBe(3);
  });

  it('marks an empty-topic row dead under its fence, logs why and counts a relay error', async () => {
    const empty = claimedInboxMessage({ eventType: null });
    const lostEmpty = claimedInboxMessage({ eventType: null, claimToken: 'stale-1' });
    const fine = claimedInboxMessage();
    const s = scriptedInboxStore([[empty, lostEmpty, fine]]);
    const { relay, logger, value } = relayWith(s.store, {
      sources: { orders: { topic: '{{ eventType }}' } as SourceConfig },
    });
    await relay.cycle();
    expect(s.deadMarks).toEqual([
      [
        { id: empty.id, claimToken: empty.claimToken },
        { id: lostEmpty.id, claimToken: 'stale-1' },
      ],
    ]);
    expect(s.forwards.flat().map((f) => f.fence.id)).toEqual([fine.id]);
    const errors = logger.lines.filter((l) => l.level === 'error');
    expect(errors).toHaveLength(2);
    expect(errors[0]!.message).toContain("The topic template of source 'orders' rendered empty");
    expect(errors[0]!.message).toContain("Set 'sources.orders.topic', or set the event type path.");
    expect(errors[0]!.fields).toMatchObject({ messageId: empty.id, source: 'orders' });
    expect(await value('queuebox_inbox_relay_errors_total')).toBe(1);
    expect(await value('queuebox_claims_lost_total', { component: 'inbox' })).toBe(1);
    expect(await value('queuebox_inbox_messages_total', { status: 'forwarded' })).toBe(1);
  });

  it('reports every row whose fence failed as a lost claim, and forwards the rest', async () => {
    const batch = [claimedInboxMessage(), claimedInboxMessage(), claimedInboxMessage()];
    const s = scriptedInboxStore([batch]);
    s.hooks.forward = (b) => Promise.resolve(new Set([b[0]!.fence.id]));
    const { relay, logger, value } = relayWith(s.store);
    await relay.cycle();
    const warnings = logger.lines.filter((l) => l.level === 'warn').map((l) => l.message);
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toMatch(
      /^The claim on inbox message \S+ was lost, .*Raise 'inbox\.relay\.claimTimeoutMs'/,
    );
    expect(await value('queuebox_claims_lost_total', { component: 'inbox' })).toBe(2);
    expect(await value('queuebox_inbox_messages_total', { status: 'forwarded' })).toBe(1);
    expect(await value('queuebox_inbox_relay_errors_total')).toBe(0);
  });

  it('forwards row by row after a batch fails, so one bad row fails alone', async () => {
    const [good1, bad, good2] = [
      claimedInboxMessage(),
      claimedInboxMessage(),
      claimedInboxMessage(),
    ] as const;
    const s = scriptedInboxStore([[good1, bad, good2]]);
    s.hooks.forward = (b) =>
      b.some((f) => f.fence.id === bad.id)
        ? Promise.reject(new Error('value too long for type character varying(255)'))
        : Promise.resolve(new Set(b.map((f) => f.fence.id)));
    const { relay, logger, value } = relayWith(s.store);
    await relay.cycle();
    expect(s.forwards.map((b) => b.length)).toEqual([3, 1, 1, 1]);
    expect(await value('queuebox_inbox_messages_total', { status: 'forwarded' })).toBe(2);
    expect(await value('queuebox_inbox_relay_errors_total')).toBe(1);
    expect(logger.lines.find((l) => l.level === 'warn')!.message).toMatch(
      /^Forwarding a batch of 3 inbox messages failed/,
    );
    const error = logger.lines.find((l) => l.level === 'error')!;
    expect(error.message).toMatch(
      new RegExp(`^Forwarding inbox message ${bad.id} failed.*value too long`),
    );
  });

  it('renews the leases of a batch between its writes and writes nothing for a row the renewal lost', async () => {
    const rows = [claimedInboxMessage(), claimedInboxMessage(), claimedInboxMessage()];
    const s = scriptedInboxStore([rows]);
    let forwardCalls = 0;
    s.hooks.forward = async (b) => {
      forwardCalls++;
      await new Promise((resolve) => setTimeout(resolve, 40));
      // The batch fails, so the rows go one by one; renewals run between those writes.
      if (forwardCalls === 1) throw new Error('deadlock detected');
      return new Set(b.map((f) => f.fence.id));
    };
    s.hooks.renew = (fences) =>
      Promise.resolve(new Set(fences.filter((f) => f.id !== rows[2]!.id).map((f) => f.id)));
    const { relay, value } = relayWith(s.store, { relay: { claimTimeoutMs: 30 } });
    await relay.cycle();
    expect(s.renewals.length).toBeGreaterThan(0);
    expect(s.forwards.flat().filter((f) => f.fence.id === rows[2]!.id)).toHaveLength(1); // only in the failed batch
    expect(await value('queuebox_claims_lost_total', { component: 'inbox' })).toBe(1);
    expect(await value('queuebox_inbox_messages_total', { status: 'forwarded' })).toBe(2);
    // Written rows are never renewed again.
    const afterLast = s.renewals.at(-1)!.map((f) => f.id);
    expect(afterLast).not.toContain(rows[0]!.id);
  });

  it('shares the inbox and claims-lost families with whoever registered them first', async () => {
    const registry = new Registry();
    const outboxFirst = new Counter({
      name: 'queuebox_claims_lost_total',
      help: 'Terminal writes that lost their claim',
      labelNames: ['component'],
      registers: [registry],
    });
    outboxFirst.inc({ component: 'outbox' });
    const s = scriptedInboxStore([[claimedInboxMessage()]]);
    s.hooks.forward = () => Promise.resolve(new Set());
    const relay = new InboxRelay({
      store: s.store,
      relay: RELAY,
      sources: {},
      registry,
      logger: recordingLogger(),
    });
    new InboxRelay({
      store: s.store,
      relay: RELAY,
      sources: {},
      registry,
      logger: recordingLogger(),
    });
    const before = await registry.metrics();
    expect(before).toContain('\nqueuebox_inbox_relay_errors_total 0\n');
    expect(before).toContain('\nqueuebox_inbox_oldest_pending_age_seconds 0\n');
    await relay.cycle();
    const values = (await registry.getSingleMetric('queuebox_claims_lost_total')!.get()).values;
    expect(values.map((v) => [v.labels.component, v.value])).toEqual([
      ['outbox', 1],
      ['inbox', 1],
    ]);
  });
});
