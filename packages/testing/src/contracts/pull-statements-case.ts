import type { InboxStore, NewInboxMessage } from '@queuebox/core';
import type { InboxHarness } from './inbox-store-contract.js';
import { inboxInsert } from './messages.js';
import type { InboxProbe, Replica } from './probe.js';

/** A row as the claim statement returns it: every inbox column under its default name. */
export interface PulledRow {
  readonly id: string;
  readonly source: string;
  readonly aggregate_id: string | null;
  readonly claim_token: string;
  /** Timestamps as Date, JSON columns parsed. */
  readonly [column: string]: unknown;
}

/** The five statements of spec §9.1; each write answers how many rows it changed. */
export interface PullStatements {
  claim(source: string, batch: number, leaseMs: number, candLimit: number): Promise<PulledRow[]>;
  renew(leaseMs: number, id: string, token: string): Promise<number>;
  complete(id: string, token: string): Promise<number>;
  retry(delayMs: number, error: string, id: string, token: string): Promise<number>;
  dead(error: string, id: string, token: string): Promise<number>;
}

export interface PullHarness extends InboxHarness {
  /** The statements on the harness's pool. */
  readonly pull: PullStatements;
  /** The statements on connections of their own: another worker process. */
  pullWorker(): Promise<Replica<PullStatements>>;
}

/** What each pull case reads when it runs. */
export interface PullCase {
  harness: PullHarness;
  probe: InboxProbe;
  store: InboxStore;
  pull: PullStatements;
}

/** `cand_limit` as every caller computes it (spec §9.1). */
export const candLimit = (batch: number): number => Math.min(Math.max(3 * batch, 50), 500);

export const pullMessage = (overrides: Partial<NewInboxMessage> = {}): NewInboxMessage =>
  inboxInsert({ consumption: 'pull', ...overrides });
