import { describe, expect, it } from 'vitest';
import type { DeliveryVerdict } from '@queuebox/core';
import { OffsetLedger, type PartitionOffset, type Ticket } from './offset-ledger.js';
import { recordOutcome } from './record-outcome.js';

type Kind = 'stored' | 'duplicate' | 'dead' | 'filtered' | 'failed';
const KINDS: readonly Kind[] = ['stored', 'duplicate', 'dead', 'filtered', 'failed'];

const verdict = (kind: Kind): DeliveryVerdict =>
  kind === 'failed'
    ? { settle: 'retry', reason: 'the store is down' }
    : { settle: 'ack', outcome: kind };

function* permutations<T>(items: readonly T[]): Generator<T[]> {
  if (items.length <= 1) {
    yield [...items];
    return;
  }
  for (let i = 0; i < items.length; i++) {
    const rest = [...items.slice(0, i), ...items.slice(i + 1)];
    for (const tail of permutations(rest)) yield [items[i]!, ...tail];
  }
}

function* outcomeSets(length: number, kinds: readonly Kind[]): Generator<Kind[]> {
  if (length === 0) {
    yield [];
    return;
  }
  for (const head of kinds)
    for (const tail of outcomeSets(length - 1, kinds)) yield [head, ...tail];
}

interface Rec {
  readonly topic: string;
  readonly partition: number;
  readonly offset: bigint;
  readonly kind: Kind;
}

const key = (r: { topic: string; partition: number }) => `${r.topic}/${r.partition}`;

/** What the rule allows: one past the handled prefix of the records whose outcome is known. */
function allowed(records: readonly Rec[], settled: ReadonlySet<Rec>): Map<string, bigint> {
  const limits = new Map<string, bigint>();
  const stopped = new Set<string>();
  for (const r of records) {
    const k = key(r);
    if (stopped.has(k)) continue;
    if (settled.has(r) && r.kind !== 'failed') limits.set(k, r.offset + 1n);
    else stopped.add(k);
  }
  return limits;
}

/** Takes every record, settles them in `order`, committing after each; checks every commit. */
function run(records: readonly Rec[], order: readonly Rec[]) {
  const ledger = new OffsetLedger();
  const tickets = new Map<Rec, Ticket>();
  for (const r of records) {
    const ticket = ledger.take(r.topic, r.partition, r.offset);
    if (ticket === null) throw new Error(`record ${key(r)}@${r.offset} not taken`);
    tickets.set(r, ticket);
  }
  const committed = new Map<string, bigint>();
  const settled = new Set<Rec>();
  const check = (commits: PartitionOffset[]) => {
    const limits = allowed(records, settled);
    for (const c of commits) {
      const k = key(c);
      // Never past a record that is not durably handled, and never backwards. (Plain throws:
      // expect() in these loops of thousands of cases costs seconds.)
      if (c.offset > (limits.get(k) ?? -1n)) throw new Error(`${k} committed past ${c.offset}`);
      if (c.offset <= (committed.get(k) ?? -1n)) throw new Error(`${k} committed backwards`);
      committed.set(k, c.offset);
    }
  };
  for (const r of order) {
    ledger.settle(tickets.get(r)!, recordOutcome(verdict(r.kind)));
    settled.add(r);
    check(ledger.commits());
  }
  return { ledger, committed };
}

/** Expected end state: the handled prefix per partition, and the first failure to seek to. */
function expected(records: readonly Rec[]) {
  const commits = allowed(records, new Set(records));
  const seeks = new Map<string, bigint>();
  for (const r of records)
    if (r.kind === 'failed' && !seeks.has(key(r))) seeks.set(key(r), r.offset);
  return { commits, seeks };
}

describe('recordOutcome', () => {
  it('counts stored, duplicate, stored dead and filtered as handled, a retry as failed', () => {
    expect(KINDS.map((kind) => recordOutcome(verdict(kind)))).toEqual([
      'handled',
      'handled',
      'handled',
      'handled',
      'failed',
    ]);
  });
});

describe('OffsetLedger: the unbroken run', () => {
  it('on one partition, over every outcome of four records and every order they settle in', () => {
    let cases = 0;
    for (const kinds of outcomeSets(4, KINDS)) {
      const records = kinds.map((kind, i) => ({
        topic: 't',
        partition: 0,
        offset: 10n + BigInt(i),
        kind,
      }));
      const want = expected(records);
      for (const order of permutations(records)) {
        const { ledger, committed } = run(records, order);
        const ok =
          committed.get('t/0') === want.commits.get('t/0') &&
          ledger.seekTarget('t', 0) === (want.seeks.get('t/0') ?? null) &&
          ledger.stopped('t', 0) === want.seeks.has('t/0') &&
          ledger.inHand === 0;
        if (!ok) expect({ kinds, order, committed }).toBe('the unbroken run');
        cases++;
      }
    }
    expect(cases).toBe(625 * 24);
  });

  it('across two partitions and two topics, every partition on its own', () => {
    let cases = 0;
    for (const kinds of outcomeSets(5, ['stored', 'filtered', 'failed'])) {
      const records: Rec[] = [
        { topic: 'a', partition: 0, offset: 0n, kind: kinds[0]! },
        { topic: 'a', partition: 0, offset: 1n, kind: kinds[1]! },
        { topic: 'a', partition: 1, offset: 7n, kind: kinds[2]! },
        { topic: 'b', partition: 0, offset: 3n, kind: kinds[3]! },
        { topic: 'b', partition: 0, offset: 5n, kind: kinds[4]! },
      ];
      const want = expected(records);
      for (const order of permutations(records)) {
        const { ledger, committed } = run(records, order);
        const ok = (['a/0', 'a/1', 'b/0'] as const).every((k) => {
          const [topic, partition] = k.split('/') as [string, string];
          return (
            committed.get(k) === want.commits.get(k) &&
            ledger.seekTarget(topic, Number(partition)) === (want.seeks.get(k) ?? null)
          );
        });
        if (!ok) expect({ kinds, order, committed }).toBe('the unbroken run per partition');
        cases++;
      }
    }
    expect(cases).toBe(243 * 120);
  });

  it('commits across offset gaps (compacted or control records): the run is what was taken', () => {
    const ledger = new OffsetLedger();
    const t1 = ledger.take('t', 0, 4n)!;
    const t2 = ledger.take('t', 0, 9n)!;
    ledger.settle(t2, 'handled');
    expect(ledger.commits()).toEqual([]);
    ledger.settle(t1, 'handled');
    expect(ledger.commits()).toEqual([{ topic: 't', partition: 0, offset: 10n }]);
    expect(ledger.commits()).toEqual([]);
  });
});

describe('OffsetLedger: seeking back to the first failure', () => {
  it('takes nothing more from a stopped partition until the seek, then runs from the failed record', () => {
    const ledger = new OffsetLedger();
    const [a, b, c] = [0n, 1n, 2n].map((offset) => ledger.take('t', 0, offset)!);
    ledger.settle(a!, 'handled');
    ledger.settle(b!, 'failed');
    expect(ledger.take('t', 0, 3n)).toBeNull();
    // Still in hand past the failure: its outcome changes nothing, it is fetched again.
    ledger.settle(c!, 'handled');
    expect(ledger.commits()).toEqual([{ topic: 't', partition: 0, offset: 1n }]);
    expect(ledger.seekTarget('t', 0)).toBe(1n);
    ledger.resume('t', 0);
    expect(ledger.seekTarget('t', 0)).toBeNull();
    expect(ledger.take('t', 0, 0n)).toBeNull();
    const again = [1n, 2n].map((offset) => ledger.take('t', 0, offset)!);
    for (const ticket of again) ledger.settle(ticket, 'handled');
    expect(ledger.commits()).toEqual([{ topic: 't', partition: 0, offset: 3n }]);
    expect(ledger.stopped('t', 0)).toBe(false);
  });

  it('seeks to the earliest failure when an earlier record fails after a later one', () => {
    const ledger = new OffsetLedger();
    const tickets = [5n, 6n, 7n, 8n].map((offset) => ledger.take('t', 0, offset)!);
    ledger.settle(tickets[2]!, 'failed');
    ledger.settle(tickets[3]!, 'handled');
    ledger.settle(tickets[0]!, 'handled');
    ledger.settle(tickets[1]!, 'failed');
    expect(ledger.seekTarget('t', 0)).toBe(6n);
    expect(ledger.commits()).toEqual([{ topic: 't', partition: 0, offset: 6n }]);
  });

  it('resumes past a failed record that is gone from the log when the seek lands after it', () => {
    const ledger = new OffsetLedger();
    ledger.settle(ledger.take('t', 0, 3n)!, 'failed');
    ledger.resume('t', 0);
    const ticket = ledger.take('t', 0, 8n);
    expect(ticket).not.toBeNull();
    ledger.settle(ticket!, 'handled');
    expect(ledger.commits()).toEqual([{ topic: 't', partition: 0, offset: 9n }]);
  });

  it('ignores a second outcome for a record and a record taken twice', () => {
    const ledger = new OffsetLedger();
    const ticket = ledger.take('t', 0, 0n)!;
    expect(ledger.take('t', 0, 0n)).toBeNull();
    ledger.settle(ticket, 'handled');
    ledger.settle(ticket, 'failed');
    expect(ledger.seekTarget('t', 0)).toBeNull();
    expect(ledger.commits()).toEqual([{ topic: 't', partition: 0, offset: 1n }]);
    expect(ledger.take('t', 0, 0n)).toBeNull();
  });
});

describe('OffsetLedger: a rebalance', () => {
  it('never commits for records of the old assignment, at whichever point it comes', () => {
    const kinds: Kind[] = ['stored', 'dead', 'failed', 'filtered'];
    for (const order of permutations([0, 1, 2, 3])) {
      for (let cut = 0; cut <= order.length; cut++) {
        const ledger = new OffsetLedger();
        const tickets = kinds.map((_, i) => ledger.take('t', i % 2, BigInt(i))!);
        const commits: PartitionOffset[] = [];
        const settled = new Set<number>();
        order.forEach((index, step) => {
          if (step === cut) {
            ledger.reassign();
            // A rebalance commits nothing by itself; what was committable was committed before.
            expect(ledger.commits()).toEqual([]);
          }
          ledger.settle(tickets[index]!, recordOutcome(verdict(kinds[index]!)));
          if (step < cut) settled.add(index);
          commits.push(...ledger.commits());
        });
        for (const c of commits) {
          // Partition 0 holds records 0 (stored) and 2 (failed): never past 1. Partition 1 holds
          // 1 (dead) and 3 (filtered).
          const before = [0, 1, 2, 3].filter((i) => i % 2 === c.partition && BigInt(i) < c.offset);
          for (const i of before) {
            expect(settled.has(i)).toBe(true);
            expect(kinds[i]).not.toBe('failed');
          }
        }
        if (cut === order.length) ledger.reassign();
        // The new owner (or this member again) reads from the last commit and goes on.
        const restart = commits.filter((c) => c.partition === 0).at(-1)?.offset ?? 0n;
        const again = ledger.take('t', 0, restart);
        expect(again).not.toBeNull();
        ledger.settle(again!, 'handled');
        expect(ledger.commits()).toEqual([{ topic: 't', partition: 0, offset: restart + 1n }]);
      }
    }
  });

  it('forgets a stopped partition: the new assignment starts from the commit, not the old seek', () => {
    const ledger = new OffsetLedger();
    ledger.settle(ledger.take('t', 0, 0n)!, 'failed');
    expect(ledger.stopped('t', 0)).toBe(true);
    ledger.reassign();
    expect(ledger.stopped('t', 0)).toBe(false);
    expect(ledger.seekTarget('t', 0)).toBeNull();
    expect(ledger.take('t', 0, 0n)).not.toBeNull();
    expect(ledger.inHand).toBe(1);
  });
});
