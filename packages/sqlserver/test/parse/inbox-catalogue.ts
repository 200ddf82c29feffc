import { JsonPayload, type DatabaseConfig, type NewInboxMessage } from '@queuebox/core';
import { inboxStatements, type PendingStore } from '../../src/inbox/inbox-statements.js';
import { MAX_BOUND_BUSY } from '../../src/inbox/inbox-relay-sql.js';
import { tableNamesFrom } from '../../src/schema/table-names.js';
import type { Statement } from '../../src/sql/statement.js';
import type { Entry } from './catalogue.js';

const NOW = new Date('2024-03-01T12:00:00.000Z');
const ID = (n: number) => `00000000-0000-4000-8000-0000000000${String(n).padStart(2, '0')}`;

function pending(n: number, overrides: Partial<NewInboxMessage> = {}): PendingStore {
  return {
    message: {
      id: ID(n),
      source: 'orders',
      idempotencyKey: `k${n}`,
      aggregateId: null,
      eventType: 'order.created',
      payload: JsonPayload.fromValue({ n }),
      headers: {},
      correlationId: null,
      consumption: 'push',
      publishTime: null,
      ...overrides,
    },
    options: { initialDelayMs: 0 },
    createdAt: NOW,
  };
}

/** Every inbox store statement, with one row and with several (statements over rows). */
export function inboxEntries(layout: string, config: DatabaseConfig): Entry[] {
  const s = inboxStatements(tableNamesFrom(config), config.inboxTableName);
  const fences = [1, 2, 3].map((n) => ({ id: ID(n), claimToken: ID(n + 10) }));
  const forward = (n: number) => ({
    fence: fences[n]!,
    outbox: {
      topic: 'orders.created',
      key: n === 0 ? null : 'a',
      headers: { 'x-inbox-id': ID(n) },
    },
  });
  const entries: [string, Statement][] = [
    ['grouped insert, one row', s.insert([pending(1)])],
    [
      'grouped insert, three rows',
      s.insert([
        pending(1, { aggregateId: 'a', correlationId: 'c', headers: { h: 'v' } }),
        pending(2, { consumption: 'pull', publishTime: NOW }),
        { ...pending(3), options: { initialDelayMs: 60_000, dead: true } },
      ]),
    ],
    ['reclaim', s.reclaim()],
    ['oldest pending age', s.oldestPending()],
    ['relay lock and busy aggregates', s.lockAndBusy()],
    ['relay claim, no busy aggregate', s.claim([], 10, 300_000, NOW)],
    ['relay claim, busy aggregates bound', s.claim(['a', 'b'], 10, 300_000, NOW)],
    [
      'relay claim, busy aggregates read in a subquery',
      s.claim(
        Array.from({ length: MAX_BOUND_BUSY + 1 }, (_, n) => `agg-${n}`),
        10,
        300_000,
        NOW,
      ),
    ],
    ['relay re-read by id', s.reread([ID(1), ID(2)])],
    ['relay forward, one row', s.forward([forward(0)], [ID(20)], NOW)],
    [
      'relay forward, three rows',
      s.forward([forward(0), forward(1), forward(2)], [ID(20), ID(21), ID(22)], NOW),
    ],
    ['relay mark dead', s.markDead(fences)],
    ['relay renew', s.renew(fences, 300_000)],
  ];
  return entries.map(([name, statement]) => ({ name: `inbox (${layout}): ${name}`, statement }));
}
