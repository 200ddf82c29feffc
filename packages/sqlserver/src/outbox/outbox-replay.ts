import { QueueBoxError, type Clock, type OutboxStore } from '@queuebox/core';
import type { OutboxCalls, OutboxStatements } from './outbox-calls.js';

/** The admin API's replay (spec §12) and the topic list it filters by. */
export function createReplay(
  calls: OutboxCalls,
  s: OutboxStatements,
  clock: Clock,
): Pick<OutboxStore, 'replay' | 'distinctTopics'> {
  return {
    async distinctTopics() {
      return (
        await calls.run<{ topic: string }>('list outbox topics', s.distinctTopics())
      ).rows.map((row) => row.topic);
    },
    async replay(filter) {
      const present = [filter.ids, filter.topics, filter.createdAfter, filter.createdBefore].some(
        (part) => part !== undefined && part !== null,
      );
      if (!present) throw new QueueBoxError('internal', 'A replay needs at least one filter.');
      if ((filter.ids && filter.ids.length === 0) || (filter.topics && filter.topics.length === 0))
        return 0;
      return (await calls.run('replay outbox rows', s.replay(filter, clock.now()))).rowCount;
    },
  };
}
