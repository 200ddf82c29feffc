import type {
  InboxStore,
  NewInboxMessage,
  RelayClaimedMessage,
  RelayForward,
} from '@queuebox/core';
import type { InboxHarness } from './inbox-store-contract.js';
import type { InboxProbe, InboxRow } from './probe.js';
import type { SetClock } from './test-clock.js';

/** The app clock of every relay case, reset before each. */
export const RELAY_EPOCH = new Date('2030-01-01T00:00:00.000Z');

/** What each relay case reads when it runs. */
export interface RelayCase {
  harness: InboxHarness;
  probe: InboxProbe;
  clock: SetClock;
  store: InboxStore;
}

/** Stores one after the other, so scheduled_at follows the argument order. */
export async function storeAll(
  store: InboxStore,
  messages: NewInboxMessage[],
  initialDelayMs = 0,
): Promise<NewInboxMessage[]> {
  for (const m of messages) await store.store(m, { initialDelayMs });
  return messages;
}

export async function inboxRow(probe: InboxProbe, id: string): Promise<InboxRow> {
  const row = (await probe.inboxRows()).find((r) => r.id === id);
  if (!row) throw new Error(`no inbox row ${id}`);
  return row;
}

/** The forward the relay builds: topic `t`, key = aggregate, the inbox id as a header. */
export function plainForward(m: RelayClaimedMessage): RelayForward {
  return {
    fence: { id: m.id, claimToken: m.claimToken },
    outbox: { topic: 't', key: m.aggregateId, headers: { 'x-inbox-id': m.id } },
  };
}

/** The `x-inbox-id` header of an outbox row the relay wrote. */
export function inboxIdOf(row: { readonly headers: unknown }): string {
  return (row.headers as Record<string, string>)['x-inbox-id']!;
}
