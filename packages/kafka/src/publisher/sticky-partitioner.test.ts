import { describe, expect, it } from 'vitest';
import type { PartitionerArgs } from '../kafkajs.js';
import { STICKY_BATCH_BYTES, StickyPartitioning } from './sticky-partitioner.js';

const metadata = (leaders: readonly number[]): PartitionerArgs['partitionMetadata'] =>
  leaders.map((leader, partitionId) => ({
    partitionErrorCode: 0,
    partitionId,
    leader,
    replicas: [leader],
    isr: [leader],
    offlineReplicas: [],
  }));

const SIX = metadata([1, 1, 1, 1, 1, 1]);
const KIB = Buffer.alloc(1024, 'x');

/** A cycling "random" source, so the picks are known. */
function cycling(values: readonly number[]): () => number {
  let i = 0;
  return () => values[i++ % values.length]!;
}

function unkeyed(p: StickyPartitioning, topic = 't', value: Buffer | string | null = KIB): number {
  return p.partition({ topic, partitionMetadata: SIX, message: { key: null, value } });
}

describe('StickyPartitioning', () => {
  it('puts a keyed record where murmur2 puts it, whatever the sticky partition', () => {
    const p = new StickyPartitioning();
    // Java's Utils.murmur2 of kafka-clients 4.4.0, six partitions (publisher-partitions test).
    const keyed = (key: string) =>
      p.partition({ topic: 't', partitionMetadata: SIX, message: { key, value: KIB } });
    expect([keyed('order-1'), keyed('order-2'), keyed('customer/42'), keyed('a')]).toEqual([
      4, 3, 1, 4,
    ]);
    unkeyed(p);
    p.nextRequest();
    expect(keyed('order-1')).toBe(4);
  });

  it('keeps an explicit partition', () => {
    const p = new StickyPartitioning();
    expect(
      p.partition({ topic: 't', partitionMetadata: SIX, message: { value: KIB, partition: 5 } }),
    ).toBe(5);
  });

  it('sends the unkeyed records of a request to one partition, moving on between requests after 16 KiB', () => {
    const p = new StickyPartitioning(cycling([0.5, 0.1, 0.9]));
    const request = () => {
      p.nextRequest();
      return Array.from({ length: 8 }, () => unkeyed(p));
    };
    const first = request();
    expect(new Set(first).size).toBe(1);
    // 8 KiB went to it: below the Java client's batch.size, the next request stays.
    expect(request()).toEqual(first);
    // 16 KiB now: the third request goes elsewhere, all of it.
    const third = request();
    expect(new Set(third).size).toBe(1);
    expect(third[0]).not.toBe(first[0]);
    expect(STICKY_BATCH_BYTES).toBe(16_384);
  });

  it('never splits a request, however many bytes it carries', () => {
    const p = new StickyPartitioning();
    p.nextRequest();
    const big = Array.from({ length: 40 }, () => unkeyed(p));
    expect(new Set(big).size).toBe(1);
  });

  it('keeps one sticky partition per topic', () => {
    const p = new StickyPartitioning(cycling([0.0, 0.99]));
    expect(unkeyed(p, 'a')).toBe(0);
    expect(unkeyed(p, 'b')).toBe(5);
    expect(unkeyed(p, 'a')).toBe(0);
  });

  it('spreads unkeyed records over every partition with a leader over time', () => {
    const leaders = metadata([1, -1, 1, 1, -1, 1]);
    const p = new StickyPartitioning();
    const seen = new Set<number>();
    for (let request = 0; request < 400; request++) {
      p.nextRequest();
      for (let i = 0; i < 16; i++) {
        seen.add(
          p.partition({
            topic: 't',
            partitionMetadata: leaders,
            message: { key: null, value: KIB },
          }),
        );
      }
    }
    expect([...seen].sort()).toEqual([0, 2, 3, 5]);
  });

  it('counts string values by their UTF-8 bytes and a tombstone as none', () => {
    const p = new StickyPartitioning(cycling([0.0, 0.5]));
    const first = unkeyed(p, 't', 'é'.repeat(STICKY_BATCH_BYTES / 2));
    p.nextRequest();
    expect(unkeyed(p, 't', null)).not.toBe(first);
    p.nextRequest();
    const tombstones = Array.from({ length: 50 }, () => {
      p.nextRequest();
      return unkeyed(p, 't', null);
    });
    expect(new Set(tombstones).size).toBe(1);
  });
});
