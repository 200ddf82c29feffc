import { randomUUID } from 'node:crypto';
import {
  JsonPayload,
  compileTopicPattern,
  type ClaimOptions,
  type ClaimedOutboxMessage,
  type Fence,
  type Headers,
  type Json,
  type NewOutboxMessage,
  type OutboxCompletion,
  type OutboxGauges,
  type OutboxStore,
  type OutboxState,
  type ReplayFilter,
} from '@queuebox/core';

/** One row of the fake table, with the columns the claim and fence rules read. */
export interface FakeRow {
  id: string;
  topic: string;
  key: string | null;
  aggregateType: string | null;
  payload: Json;
  headers: Headers;
  state: OutboxState;
  attempt: number;
  maxAttempts: number;
  scheduledAt: number;
  createdAt: number;
  updatedAt: number;
  claimedAt: number | null;
  claimToken: string | null;
  leaseExpiresAt: number | null;
  lastError: string | null;
  sequence: bigint;
}

type Method = 'claim' | 'complete' | 'renew' | 'reclaimExpired' | 'gauges' | 'release';

/** An empty list per method. */
function byMethod(): Record<Method, number[]> {
  return { claim: [], complete: [], renew: [], reclaimExpired: [], gauges: [], release: [] };
}

/**
 * A unit-test fake of the OutboxStore port that honours the rules the real SQL enforces: the
 * key-head claim of spec §4.2, the claim fence of §4.4 (state, token, live lease), reclaim of
 * expired leases with the attempt unchanged, and the `attempt` increment on retry only. One
 * clock (`now`, movable with `advance`) plays both the app and the DB clock. It records every
 * call so tests can assert batching and cadence. Not a database: for unit tests of the poller.
 */
export class InMemoryOutboxStore implements OutboxStore {
  readonly rows = new Map<string, FakeRow>();
  readonly calls = byMethod();
  /** `performance.now()` as each call began, by method: backoff tests measure the pauses between. */
  readonly callTimes = byMethod();
  /** Artificial latency per call, in ms (a database round trip). */
  latencyMs = 0;
  private offsetMs = 0;
  private nextSequence = 1n;
  private readonly failures = new Map<Method, unknown[]>();

  now(): number {
    return Date.now() + this.offsetMs;
  }

  /** Moves the shared clock forward (leases and schedules expire). */
  advance(ms: number): void {
    this.offsetMs += ms;
  }

  /** The next `times` calls of `method` throw `error`. */
  failNext(method: Method, error: unknown, times = 1): void {
    const queue = this.failures.get(method) ?? [];
    for (let i = 0; i < times; i++) queue.push(error);
    this.failures.set(method, queue);
  }

  /** Simulates another replica taking the row over: the token no longer matches. */
  stealClaim(id: string): void {
    const row = this.row(id);
    row.claimToken = randomUUID();
  }

  row(id: string): FakeRow {
    const row = this.rows.get(id);
    if (!row) throw new Error(`no row ${id}`);
    return row;
  }

  byState(state: OutboxState): FakeRow[] {
    return [...this.rows.values()].filter((r) => r.state === state);
  }

  insert(messages: readonly NewOutboxMessage[]): Promise<void> {
    const now = this.now();
    for (const m of messages) {
      const id = m.id ?? randomUUID();
      this.rows.set(id, {
        id,
        topic: m.topic,
        key: m.key ?? null,
        aggregateType: m.aggregateType ?? null,
        payload: m.payload,
        headers: m.headers ?? {},
        state: 'pending',
        attempt: 0,
        maxAttempts: m.maxAttempts ?? 5,
        scheduledAt: m.scheduledAt ? m.scheduledAt.getTime() : now,
        createdAt: now,
        updatedAt: now,
        claimedAt: null,
        claimToken: null,
        leaseExpiresAt: null,
        lastError: null,
        sequence: this.nextSequence++,
      });
    }
    return Promise.resolve();
  }

  async claim(
    limit: number,
    leaseMs: number,
    options?: ClaimOptions,
  ): Promise<ClaimedOutboxMessage[]> {
    await this.enter('claim', limit);
    const now = this.now();
    const open = [...this.rows.values()].filter(
      (r) => r.state === 'pending' || r.state === 'processing',
    );
    const heads = open.filter(
      (r) =>
        r.state === 'pending' &&
        r.scheduledAt <= now &&
        (r.key === null ||
          r.key === '' ||
          !open.some((o) => o !== r && o.key === r.key && o.sequence < r.sequence)),
    );
    heads.sort((a, b) => a.scheduledAt - b.scheduledAt || Number(a.sequence - b.sequence));
    const passOver = (options?.passOver ?? []).map((rule) => ({
      pattern: compileTopicPattern(rule.pattern),
      unless: rule.unless.map((glob) => compileTopicPattern(glob)),
    }));
    const passed = (topic: string) =>
      passOver.some((r) => r.pattern.test(topic) && !r.unless.some((u) => u.test(topic)));
    const taken = heads.filter((r) => !passed(r.topic)).slice(0, limit);
    for (const row of taken) {
      row.state = 'processing';
      row.updatedAt = now;
      row.claimedAt = now;
      row.claimToken = randomUUID();
      row.leaseExpiresAt = now + leaseMs;
    }
    return taken.map((row) => this.toClaimed(row));
  }

  async complete(completions: readonly OutboxCompletion[]): Promise<Set<string>> {
    await this.enter('complete', completions.length);
    const now = this.now();
    const held = new Set<string>();
    for (const c of completions) {
      const row = this.fenced(c.fence, now);
      if (!row) continue;
      held.add(row.id);
      row.updatedAt = now;
      if (c.kind === 'sent') {
        row.state = 'sent';
      } else if (c.kind === 'retry') {
        row.state = 'pending';
        row.scheduledAt = now + c.delayMs;
        row.attempt += 1;
        row.claimedAt = null;
        row.lastError = c.error;
      } else {
        row.state = 'dead';
        row.claimedAt = null;
        row.lastError = c.error;
      }
    }
    return held;
  }

  renew(fences: readonly Fence[], leaseMs: number): Promise<Set<string>> {
    return this.eachFenced('renew', fences, (row, now) => {
      row.leaseExpiresAt = now + leaseMs;
    });
  }

  release(fences: readonly Fence[]): Promise<Set<string>> {
    return this.eachFenced('release', fences, (row, now) => {
      row.state = 'pending';
      row.claimedAt = null;
      row.updatedAt = now;
    });
  }

  /** `change` on each row whose fence holds; the ids of those rows. */
  private async eachFenced(
    method: Method,
    fences: readonly Fence[],
    change: (row: FakeRow, now: number) => void,
  ): Promise<Set<string>> {
    await this.enter(method, fences.length);
    const now = this.now();
    const held = new Set<string>();
    for (const fence of fences) {
      const row = this.fenced(fence, now);
      if (!row) continue;
      change(row, now);
      held.add(row.id);
    }
    return held;
  }

  async reclaimExpired(): Promise<number> {
    await this.enter('reclaimExpired', 0);
    const now = this.now();
    let count = 0;
    for (const row of this.rows.values()) {
      if (row.state !== 'processing') continue;
      if (row.leaseExpiresAt !== null && row.leaseExpiresAt > now) continue;
      row.state = 'pending';
      row.claimedAt = null;
      row.updatedAt = now;
      count++;
    }
    return count;
  }

  async gauges(): Promise<OutboxGauges> {
    await this.enter('gauges', 0);
    const pending = this.byState('pending');
    const oldest = pending.reduce((min, r) => Math.min(min, r.createdAt), Number.POSITIVE_INFINITY);
    return {
      pending: pending.length,
      oldestPendingAgeSeconds: pending.length === 0 ? 0 : (this.now() - oldest) / 1000,
    };
  }

  distinctTopics(): Promise<string[]> {
    return Promise.resolve([...new Set([...this.rows.values()].map((r) => r.topic))].sort());
  }

  replay(_filter: ReplayFilter): Promise<number> {
    return Promise.reject(new Error('replay is not part of the poller fake'));
  }

  /** Records the call, fails it when asked, and waits the configured latency. */
  private async enter(method: Method, size: number): Promise<void> {
    this.calls[method].push(size);
    this.callTimes[method].push(performance.now());
    if (this.latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, this.latencyMs));
    const queue = this.failures.get(method);
    if (queue && queue.length > 0) throw queue.shift();
  }

  private fenced(fence: Fence, now: number): FakeRow | undefined {
    const row = this.rows.get(fence.id);
    if (!row || row.state !== 'processing' || row.claimToken === null) return undefined;
    if (row.claimToken !== fence.claimToken) return undefined;
    if (row.leaseExpiresAt === null || row.leaseExpiresAt <= now) return undefined;
    return row;
  }

  private toClaimed(row: FakeRow): ClaimedOutboxMessage {
    return {
      id: row.id,
      topic: row.topic,
      key: row.key,
      aggregateType: row.aggregateType,
      // As the database: the claim hands back the stored JSON text.
      payload: JsonPayload.fromValue(row.payload),
      headers: { ...row.headers },
      state: row.state,
      attempt: row.attempt,
      maxAttempts: row.maxAttempts,
      scheduledAt: new Date(row.scheduledAt),
      createdAt: new Date(row.createdAt),
      sequence: row.sequence,
      lastError: row.lastError,
      claimToken: row.claimToken ?? '',
    };
  }
}
