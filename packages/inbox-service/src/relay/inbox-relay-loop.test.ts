import type { SourceConfig } from '@queuebox/core';
import { describe, expect, it } from 'vitest';
import { relayWith, waitFor } from '../../test/relay-harness.js';
import { claimedInboxMessage, scriptedInboxStore } from '@queuebox/testing';

/** Claims of 3, 3 and 1 rows (batchSize 3), and forwards that wait until the test releases them. */
function gatedBacklog() {
  const s = scriptedInboxStore([
    [claimedInboxMessage(), claimedInboxMessage(), claimedInboxMessage()],
    [claimedInboxMessage(), claimedInboxMessage(), claimedInboxMessage()],
    [claimedInboxMessage()],
  ]);
  const releases: (() => void)[] = [];
  s.hooks.forward = (b) =>
    new Promise((resolve) => releases.push(() => resolve(new Set(b.map((f) => f.fence.id)))));
  return { s, releases };
}

/** The relay loop (spec §8.1): when it claims, its cadences, failures, start and close. */
describe('InboxRelay: the loop', () => {
  it('keeps claiming within a cycle while claims return rows, up to batchSize rows', async () => {
    const s = scriptedInboxStore([
      [claimedInboxMessage()],
      [claimedInboxMessage()],
      [claimedInboxMessage()],
      [claimedInboxMessage()],
    ]);
    const { relay } = relayWith(s.store);
    // Partial claims (one row each): the cycle goes on until batchSize (3) rows moved.
    await relay.cycle();
    expect(s.forwards).toHaveLength(3);
    expect(s.claims).toHaveLength(1);
    // The next cycle ends early on an empty claim.
    s.claims.splice(0, s.claims.length, [claimedInboxMessage()], []);
    await relay.cycle();
    expect(s.forwards).toHaveLength(4);
  });

  it('keeps two claims in flight under a backlog and writes one batch at a time, in claim order', async () => {
    const { s, releases } = gatedBacklog();
    const { relay, metrics } = relayWith(s.store);
    const cycle = relay.cycle();
    await waitFor(() => s.events.length >= 5);
    // The first claim was full: two more claims went out before its batch was written, and the
    // second full claim sent the next one while the first batch was still being written.
    expect(s.events).toEqual(['claim:3', 'claim:3', 'claim:1', 'forward:3', 'claim:0']);
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(s.events).toHaveLength(5);
    releases.shift()!();
    await waitFor(() => releases.length === 1);
    expect(s.events.slice(5)).toEqual(['forwarded:3', 'forward:3']);
    releases.shift()!();
    await waitFor(() => releases.length === 1);
    releases.shift()!();
    await cycle;
    expect(s.events.slice(7)).toEqual(['forwarded:3', 'forward:1', 'forwarded:1', 'claim:0']);
    expect(s.forwards.map((batch) => batch.length)).toEqual([3, 3, 1]);
    expect(metrics.messages.value({ status: 'forwarded' })).toBe(7);
  });

  it('writes the rows of claims still in flight when it is closed: claimed rows are never dropped', async () => {
    const { s, releases } = gatedBacklog();
    const { relay, metrics } = relayWith(s.store);
    relay.start();
    await waitFor(() => releases.length === 1);
    const closing = relay.close();
    while (s.forwards.length < 3 || releases.length > 0) {
      await waitFor(() => releases.length > 0);
      releases.shift()!();
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await closing;
    expect(s.forwards.map((batch) => batch.length)).toEqual([3, 3, 1]);
    expect(metrics.messages.value({ status: 'forwarded' })).toBe(7);
  });

  it('claims again after an empty claim while a batch was still being written', async () => {
    const s = scriptedInboxStore([
      [claimedInboxMessage(), claimedInboxMessage(), claimedInboxMessage()],
      [],
      [claimedInboxMessage()],
      [],
    ]);
    const { relay } = relayWith(s.store);
    await relay.cycle();
    expect(s.events.filter((e) => e.startsWith('claim'))).toEqual([
      'claim:3',
      'claim:0', // sent with the next one right after the full claim
      'claim:1',
      'claim:0', // the batches were still being written: claim once more after them
      'claim:0', // nothing in flight: the cycle ends
    ]);
    expect(s.forwards.map((b) => b.length)).toEqual([3, 1]);
  });

  it('counts a failing batch and still writes the next one', async () => {
    const s = scriptedInboxStore([
      [claimedInboxMessage({ eventType: null })],
      [claimedInboxMessage()],
      [],
    ]);
    s.hooks.markDeadFails = true;
    const { relay, logger, metrics } = relayWith(s.store, {
      sources: { orders: { topic: '{{ eventType }}' } as SourceConfig },
    });
    await relay.cycle();
    expect(metrics.relayErrors.value()).toBe(1);
    expect(logger.lines.some((l) => l.message.startsWith('The relay cycle failed.'))).toBe(true);
    expect(metrics.messages.value({ status: 'forwarded' })).toBe(1);
  });

  it('runs the reclaim step and the gauge at their own cadence', async () => {
    let now = 0;
    const s = scriptedInboxStore();
    const { relay, metrics } = relayWith(s.store, {
      relay: { claimTimeoutMs: 1_000 },
      nowMs: () => now,
    });
    await relay.cycle();
    expect([s.reclaims(), s.gauges()]).toEqual([1, 1]);
    expect(metrics.oldestPendingAgeSeconds.value()).toBe(12.5);
    now = 199;
    await relay.cycle();
    expect([s.reclaims(), s.gauges()]).toEqual([1, 1]);
    now = 200; // claimTimeoutMs / 5
    s.hooks.age = 3;
    await relay.cycle();
    expect([s.reclaims(), s.gauges()]).toEqual([2, 1]);
    now = 5_000;
    await relay.cycle();
    expect([s.reclaims(), s.gauges()]).toEqual([3, 2]);
    expect(metrics.oldestPendingAgeSeconds.value()).toBe(3);
  });

  it('counts a failing cycle, logs it sanitized, and keeps looping', async () => {
    const row = claimedInboxMessage();
    const s = scriptedInboxStore([
      new Error('connect ECONNREFUSED postgres://qb:hunter2@db:5432/x'),
      [row],
    ]);
    const { relay, logger, metrics } = relayWith(s.store);
    relay.start();
    expect(relay.running).toBe(true);
    await waitFor(() => s.forwards.length === 1);
    await relay.close();
    expect(relay.running).toBe(false);
    expect(metrics.relayErrors.value()).toBe(1);
    const line = logger.lines.find((l) => l.level === 'error')!.message;
    expect(line).toMatch(/^The relay cycle failed\. The next cycle retries\. Reason: /);
    expect(line).not.toContain('hunter2');
  });

  it('logs an outage once at ERROR, its retries at DEBUG after growing pauses, and its end at INFO', async () => {
    const down = () => new Error('connect ECONNREFUSED 127.0.0.1:5432');
    const s = scriptedInboxStore([down(), down(), down(), [claimedInboxMessage()]]);
    const { relay, logger, metrics } = relayWith(s.store);
    relay.start();
    await waitFor(() => s.forwards.length === 1);
    await relay.close();
    const failed =
      'The relay cycle failed. The next cycle retries. Reason: Error: connect ECONNREFUSED 127.0.0.1:5432';
    expect(logger.messages('error')).toEqual([failed]);
    expect(logger.messages('debug').filter((m) => m === failed)).toHaveLength(2);
    expect(logger.messages('info')).toEqual([
      'The relay cycle succeeded again after 3 failure(s).',
    ]);
    expect(metrics.relayErrors.value()).toBe(3);
    // Pauses of 10, 20, 40 ms (pollIntervalMs 10, doubling) before the retries and the success,
    // measured where the claims began: a log line can be written late on a busy machine.
    const times = s.claimTimes;
    expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(10 - 2);
    expect(times[2]! - times[1]!).toBeGreaterThanOrEqual(20 - 2);
    expect(times[3]! - times[2]!).toBeGreaterThanOrEqual(40 - 2);
  });

  it('drains on close: the batch in hand is written before close resolves', async () => {
    const rows = [claimedInboxMessage()];
    const s = scriptedInboxStore([rows]);
    let release!: () => void;
    s.hooks.forward = (b) =>
      new Promise((resolve) => {
        release = () => resolve(new Set(b.map((f) => f.fence.id)));
      });
    const { relay, metrics } = relayWith(s.store);
    relay.start();
    await waitFor(() => s.forwards.length === 1);
    let closed = false;
    const closing = relay.close().then(() => (closed = true));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(closed).toBe(false);
    release();
    await closing;
    expect(metrics.messages.value({ status: 'forwarded' })).toBe(1);
    expect(relay.running).toBe(false);
  });

  it('does not start when the relay is disabled, and stops on an aborted signal', async () => {
    const s = scriptedInboxStore([[claimedInboxMessage()]]);
    const disabled = relayWith(s.store, { relay: { enabled: false } }).relay;
    disabled.start();
    expect(disabled.running).toBe(false);
    await disabled.close();
    expect(s.forwards).toHaveLength(0);

    const controller = new AbortController();
    const { relay } = relayWith(scriptedInboxStore().store);
    relay.start(controller.signal);
    controller.abort();
    await relay.close();
    expect(relay.running).toBe(false);
  });

  it('waits pollIntervalMs between cycles unless woken: a wake starts the next cycle at once', async () => {
    const s = scriptedInboxStore();
    const { relay } = relayWith(s.store, { relay: { pollIntervalMs: 60_000 } });
    relay.start();
    await waitFor(() => s.events.length === 1);
    s.claims.push([claimedInboxMessage()]);
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(s.forwards).toHaveLength(0);
    relay.wake();
    await waitFor(() => s.forwards.length === 1);
    await relay.close();
  });

  it('calls onForwarded after a forward committed rows, not after an empty cycle', async () => {
    let forwarded = 0;
    const s = scriptedInboxStore([[], [claimedInboxMessage(), claimedInboxMessage()]]);
    const { relay } = relayWith(s.store, { onForwarded: () => forwarded++ });
    await relay.cycle();
    expect(forwarded).toBe(0);
    await relay.cycle();
    expect(forwarded).toBe(1);
  });
});
