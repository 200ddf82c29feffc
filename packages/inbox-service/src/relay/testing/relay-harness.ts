import type {
  RelayClaimedMessage,
  Fence,
  InboxStore,
  LogFields,
  Logger,
  RelayConfig,
  RelayForward,
  SourceConfig,
} from '@queuebox/core';
import { Registry } from 'prom-client';
import { InboxRelay } from '../inbox-relay.js';

/**
 * Test support for the relay's unit tests: claimed rows, a recording logger, and a store whose
 * claims come from a script and whose writes are recorded (ownership rules are the store's SQL,
 * tested on PostgreSQL; here the store only answers what a test needs).
 */
let counter = 0;
export function claimed(overrides: Partial<RelayClaimedMessage> = {}): RelayClaimedMessage {
  counter++;
  return {
    id: `00000000-0000-4000-8000-${String(counter).padStart(12, '0')}`,
    source: 'orders',
    idempotencyKey: `key-${counter}`,
    aggregateId: `agg-${counter}`,
    eventType: 'order.created',
    headers: {},
    correlationId: null,
    consumption: 'push',
    state: 'processing',
    createdAt: new Date(0),
    scheduledAt: new Date(0),
    attempt: 0,
    claimToken: `token-${counter}`,
    ...overrides,
  };
}

interface Line {
  readonly level: string;
  readonly message: string;
  readonly fields: LogFields | undefined;
}

export function recordingLogger(lines: Line[] = []): Logger & { lines: Line[] } {
  const at = (level: string) => (message: string, fields?: LogFields) =>
    void lines.push({ level, message, fields });
  const logger = {
    lines,
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    child: () => logger,
  };
  return logger;
}

/** A store whose claims come from a script; writes are recorded and answered by hooks. */
export function scriptedStore(claims: (RelayClaimedMessage[] | Error)[] = []) {
  const forwards: RelayForward[][] = [];
  const deadMarks: Fence[][] = [];
  const renewals: Fence[][] = [];
  let reclaims = 0;
  let gauges = 0;
  const hooks = {
    forward: (batch: readonly RelayForward[]): Promise<Set<string>> =>
      Promise.resolve(new Set(batch.map((f) => f.fence.id))),
    renew: (fences: readonly Fence[]): Promise<Set<string>> =>
      Promise.resolve(new Set(fences.map((f) => f.id))),
    age: 12.5,
    markDeadFails: false,
  };
  const events: string[] = [];
  const store: InboxStore = {
    store: () => Promise.reject(new Error('not used')),
    claimForRelay: () => {
      const next = claims.shift() ?? [];
      events.push(next instanceof Error ? 'claim:error' : `claim:${next.length}`);
      return next instanceof Error ? Promise.reject(next) : Promise.resolve(next);
    },
    forward: async (batch) => {
      forwards.push([...batch]);
      events.push(`forward:${batch.length}`);
      try {
        return await hooks.forward(batch);
      } finally {
        events.push(`forwarded:${batch.length}`);
      }
    },
    markDead: (fences) => {
      deadMarks.push([...fences]);
      if (hooks.markDeadFails) return Promise.reject(new Error('markDead failed'));
      return Promise.resolve(
        new Set(fences.filter((f) => !f.claimToken.startsWith('stale')).map((f) => f.id)),
      );
    },
    renew: (fences) => {
      renewals.push([...fences]);
      return hooks.renew(fences);
    },
    reclaimExpired: () => Promise.resolve(++reclaims && 0),
    oldestPendingAgeSeconds: () => Promise.resolve(++gauges && hooks.age),
  };
  return {
    store,
    claims,
    events,
    forwards,
    deadMarks,
    renewals,
    hooks,
    reclaims: () => reclaims,
    gauges: () => gauges,
  };
}

export const RELAY: RelayConfig = {
  enabled: true,
  pollIntervalMs: 10,
  batchSize: 3,
  claimTimeoutMs: 300_000,
  pendingGaugeIntervalMs: 5_000,
  maxAttempts: 6,
};

export function relayWith(
  store: InboxStore,
  options: {
    relay?: Partial<RelayConfig>;
    sources?: Record<string, SourceConfig>;
    nowMs?: () => number;
    onForwarded?: () => void;
  } = {},
) {
  const registry = new Registry();
  const logger = recordingLogger();
  const relay = new InboxRelay({
    store,
    relay: { ...RELAY, ...options.relay },
    sources: options.sources ?? { orders: { topic: 'in.{{ eventType }}' } as SourceConfig },
    registry,
    logger,
    nowMs: options.nowMs,
    onForwarded: options.onForwarded,
  });
  const value = async (name: string, labels: Record<string, string> = {}) => {
    const metric = await registry.getSingleMetric(name)?.get();
    const found = metric?.values.find((v) =>
      Object.entries(labels).every(([k, l]) => v.labels[k] === l),
    );
    return found?.value ?? 0;
  };
  return { relay, registry, logger, value };
}

export const waitFor = async (condition: () => boolean, ms = 2_000) => {
  const end = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > end) throw new Error('condition not met');
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
};
