import { publishFailed } from '@queuebox/core';
import { afterEach, describe, expect, it } from 'vitest';
import { FakePublisher, until } from '@queuebox/testing';
import { fakeRouter } from '../../test/poller-fakes.js';
import { pollerHarness, type PollerHarness } from '../../test/poller-harness.js';
import { DestinationGates, passOverRules, type DestinationGate } from './destination-gates.js';

class Gate implements DestinationGate {
  closed = false;
  refuse = false;
  readonly outcomes: string[] = [];
  blocked(): boolean {
    return this.closed;
  }
  admit(): boolean {
    return !this.closed && !this.refuse;
  }
  settled(outcome: { kind: string }): void {
    this.outcomes.push(outcome.kind);
  }
}

const routes = [
  { topicPattern: 'a.special', destination: 'b' },
  { topicPattern: 'a.**', destination: 'a' },
  { topicPattern: 'c.*', destination: 'c' },
  { topicPattern: '**', destination: 'b' },
];

describe('passOverRules', () => {
  it('makes one rule per route to a blocked destination, unless an earlier open route matches', () => {
    expect(passOverRules(routes, new Set(['a']))).toEqual([
      { pattern: 'a.**', unless: ['a.special'] },
    ]);
    expect(passOverRules(routes, new Set(['a', 'b']))).toEqual([
      { pattern: 'a.special', unless: [] },
      { pattern: 'a.**', unless: [] },
      { pattern: '**', unless: ['c.*'] },
    ]);
    expect(passOverRules(routes, new Set())).toEqual([]);
  });
});

describe('DestinationGates', () => {
  it('asks nothing of the claim while no gate is blocked, and builds the filter per blocked set', () => {
    const gates = new DestinationGates(routes, () => 0);
    const a = new Gate();
    gates.add('a', a);
    expect(gates.isEmpty).toBe(false);
    expect(gates.claimOptions()).toBeNull();
    a.closed = true;
    const first = gates.claimOptions();
    expect(first).toEqual({ passOver: [{ pattern: 'a.**', unless: ['a.special'] }] });
    expect(gates.claimOptions()).toBe(first);
    expect([...gates.blocked()]).toEqual(['a']);
  });

  it('settles the earlier admissions as cancelled when a later gate of the destination says no', () => {
    const gates = new DestinationGates(routes, () => 0);
    const breaker = new Gate();
    const limit = new Gate();
    gates.add('a', breaker);
    gates.add('a', limit);
    limit.refuse = true;
    expect(gates.admit('a')).toBe(false);
    expect(breaker.outcomes).toEqual(['cancelled']);
    expect(limit.outcomes).toEqual([]);
    limit.refuse = false;
    expect(gates.admit('a')).toBe(true);
    gates.settled('a', { kind: 'success' });
    expect(breaker.outcomes).toEqual(['cancelled', 'success']);
    expect(limit.outcomes).toEqual(['success']);
    expect(gates.admit('no-gate')).toBe(true);
  });
});

describe('OutboxPoller with a gate', () => {
  let h: PollerHarness | undefined;
  afterEach(async () => {
    await h?.poller.close();
    h = undefined;
  });

  it('hands back, attempt unchanged, a claimed row whose gate says no at publish time', async () => {
    const gate = new Gate();
    gate.refuse = true; // Not blocked at the claim, refusing at the publish: a gate that closed.
    const gates = new DestinationGates([
      { topicPattern: 'a.*', destination: 'a' },
      { topicPattern: '**', destination: 'b' },
    ]);
    gates.add('a', gate);
    const publisher = new FakePublisher();
    h = pollerHarness({
      gates,
      publishers: [publisher],
      router: fakeRouter({ 'a.1': { destination: 'a' }, '*': { destination: 'b' } }),
    });
    const [gated, other] = await h.insert(
      { topic: 'a.1', payload: {} },
      { topic: 'b.1', payload: {} },
    );
    h.poller.start();
    await until(() => h!.store.row(other!).state === 'sent', 5_000, 'the other row sent');
    await until(() => h!.store.calls.release.length > 0, 5_000, 'a hand-back');
    const row = h.store.row(gated!);
    expect(publisher.requests.map((r) => r.message.topic)).toEqual(['b.1']);
    expect(row.attempt).toBe(0);
    expect(gate.outcomes).toEqual([]);

    gate.refuse = false;
    await until(() => h!.store.row(gated!).state === 'sent', 5_000, 'the gated row sent');
    expect(h.store.row(gated!).attempt).toBe(0);
    await until(() => gate.outcomes.length === 1);
    expect(gate.outcomes).toEqual(['success']);
  });

  it('reports a failed publish to the gate with the Retry-After the publisher read', async () => {
    const gate = new Gate();
    const gates = new DestinationGates([{ topicPattern: '**', destination: 'orders' }]);
    const seen: unknown[] = [];
    gates.add('orders', {
      blocked: () => false,
      admit: () => true,
      settled: (outcome) => {
        seen.push(outcome);
      },
    });
    gates.add('orders', gate);
    h = pollerHarness({
      gates,
      publishers: [
        new FakePublisher('http', 'all', () => ({
          ok: false,
          error: publishFailed('HTTP 429'),
          retryAfterMs: 2_000,
        })),
      ],
    });
    await h.insert({ topic: 'x', payload: {} });
    h.poller.start();
    await until(() => seen.length === 1);
    expect(seen).toEqual([{ kind: 'failure', retryAfterMs: 2_000 }]);
  });
});
