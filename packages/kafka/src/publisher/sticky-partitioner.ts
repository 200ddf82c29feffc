/**
 * Which partition a record goes to, as the Java client's default partitioner decides (the
 * reference's producer sets no `partitioner.class`):
 *
 * - a keyed record: `toPositive(murmur2(key)) % partitions` (kafkajs's DefaultPartitioner), so a
 *   Java or librdkafka consumer finds each key on the partition its own partitioner names, and a
 *   key's records stay in order on one partition;
 * - an unkeyed record: the topic's current sticky partition (KIP-480, KIP-794). Every unkeyed
 *   record goes there until about `batch.size` (16 KiB, the Java default) went to it; then the
 *   next request picks another available partition at random. The partition changes only between
 *   requests, so the unkeyed rows of one request share one record batch.
 *
 * Round-robin (kafkajs's choice for a null key) spread the 8 rows of a request over as many
 * partitions: the client encoded, checksummed and the broker appended one record batch per row.
 * Unkeyed rows have no order to keep, and over time they still spread over every partition.
 */
import { Partitioners, type PartitionerArgs } from '../kafkajs.js';

/** The Java client's `batch.size` default: unkeyed bytes one sticky partition takes at least. */
export const STICKY_BATCH_BYTES = 16_384;

interface Sticky {
  partition: number;
  bytes: number;
  /** Took its share: the next record picks another partition. */
  moving: boolean;
}

export class StickyPartitioning {
  readonly #keyed = Partitioners.DefaultPartitioner();
  readonly #sticky = new Map<string, Sticky>();
  readonly #random: () => number;

  constructor(random: () => number = Math.random) {
    this.#random = random;
  }

  /** kafkajs's `createPartitioner`: every producer of the link shares the sticky state. */
  readonly create = (): ((args: PartitionerArgs) => number) => (args) => this.partition(args);

  partition(args: PartitionerArgs): number {
    const { message } = args;
    if (message.partition !== undefined && message.partition !== null) return message.partition;
    if (message.key !== undefined && message.key !== null) return this.#keyed(args);
    let sticky = this.#sticky.get(args.topic);
    if (sticky === undefined) {
      sticky = { partition: this.#pick(args, null), bytes: 0, moving: false };
      this.#sticky.set(args.topic, sticky);
    } else if (sticky.moving || sticky.partition >= args.partitionMetadata.length) {
      sticky.partition = this.#pick(args, sticky.partition);
      sticky.bytes = 0;
      sticky.moving = false;
    }
    sticky.bytes += valueBytes(message.value);
    return sticky.partition;
  }

  /**
   * Called before each request: a topic whose sticky partition took its share moves on, so the
   * unkeyed records of one request never straddle two partitions.
   */
  nextRequest(): void {
    for (const sticky of this.#sticky.values()) {
      if (sticky.bytes >= STICKY_BATCH_BYTES) sticky.moving = true;
    }
  }

  /** A random partition with a leader, another than `previous` when there is a choice. */
  #pick({ partitionMetadata }: PartitionerArgs, previous: number | null): number {
    const led = partitionMetadata.filter((p) => p.leader >= 0).map((p) => p.partitionId);
    const choices = led.length > 0 ? led : partitionMetadata.map((p) => p.partitionId);
    const others = choices.length > 1 ? choices.filter((id) => id !== previous) : choices;
    return others[Math.floor(this.#random() * others.length)] ?? 0;
  }
}

function valueBytes(value: PartitionerArgs['message']['value']): number {
  if (value === null) return 0;
  return typeof value === 'string' ? Buffer.byteLength(value, 'utf8') : value.length;
}
