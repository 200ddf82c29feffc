/**
 * What the broker outbox end-to-end files share: a fresh database, a fault proxy to the broker
 * (the `slow` destination goes through it), the service with the outbox, the relay, the admin
 * API and a `hooks` webhook source, and a `slow.warm` row sent first so the slow destination's
 * connection is open before its answers slow down. Each broker's file declares its destinations
 * and routes, and keeps the tests whose assertions are its own; the helpers here are the steps
 * they take alike (a row dead with its reason, an admin replay, a webhook posted).
 */
import {
  createFreshDatabase,
  startFaultProxy,
  type FaultProxy,
  type FreshDatabase,
} from '@queuebox/testing';
import { afterAll, beforeAll, expect } from 'vitest';
import type { ProviderRegistry } from '../src/providers.js';
import { outboxRows } from './e2e-rows.js';
import { startTestService } from './service.js';

export interface OutboxE2EBroker {
  readonly pgUrl: string;
  readonly database: string;
  readonly target: { readonly host: string; readonly port: number };
  /** The broker's scratch, then its `destinations:` and `routes:` entries, indented by two. */
  open(proxy: FaultProxy): Promise<{
    readonly destinations: string;
    readonly routes: string;
    readonly providers?: ProviderRegistry;
    cleanup(): Promise<void>;
  }>;
  /** Extra lines of the `hooks` source, indented by four. */
  readonly hooks?: string;
  /** How long the warm row may take (a Kafka producer connects first). */
  readonly warmMs?: number;
}

export function outboxE2E(broker: OutboxE2EBroker, setupMs?: number) {
  let db: FreshDatabase;
  let proxy: FaultProxy;
  let service: Awaited<ReturnType<typeof startTestService>>;
  let cleanup: (() => Promise<void>) | undefined;
  const rows = outboxRows(() => db);

  beforeAll(async () => {
    db = await createFreshDatabase(broker.pgUrl, broker.database);
    proxy = await startFaultProxy({ target: broker.target });
    const scratch = await broker.open(proxy);
    cleanup = () => scratch.cleanup();
    service = await startTestService(
      db,
      `
database:
  migrate: true
outbox:
  retryBaseDelayMs: 50
  pollIntervalMs: 50
inbox:
  relay:
    enabled: true
    pollIntervalMs: 50
admin:
  enabled: true
  insecure: true
destinations:
${scratch.destinations}
routes:
  - topicPattern: "hook.*"
    destination: events
  - topicPattern: "slow.*"
    destination: slow
${scratch.routes}
sources:
  hooks:
    path: /hooks
    idempotencyKeyPath: $.id
    eventTypePath: $.type
${broker.hooks ?? ''}`,
      {},
      undefined,
      scratch.providers,
    );
    const [warm] = await rows.insert('slow.warm', { warm: true });
    await rows.sent(warm!.id, broker.warmMs);
  }, setupMs);
  afterAll(async () => {
    await service?.stop();
    await proxy?.close();
    await cleanup?.();
    await db?.drop();
  });

  return {
    ...rows,
    db: () => db,
    proxy: () => proxy,
    /** A row of `topic` retried `attempts` times, then dead with `error(id)` as its last error. */
    expectDead: async (
      topic: string,
      payload: object,
      options: { attempts: number; key?: string; timeoutMs?: number },
      error: (id: string) => string,
    ) => {
      const [inserted] = await rows.insert(topic, payload, {
        maxAttempts: options.attempts,
        ...(options.key === undefined ? {} : { key: options.key }),
      });
      const id = inserted!.id;
      const final = await rows.dead(id, options.timeoutMs);
      expect(final.attempt).toBe(options.attempts);
      expect(final.last_error).toBe(error(id));
      return id;
    },
    /** The admin API's replay of one sent row. */
    replay: async (id: string) => {
      const response = await fetch(`${service.base}/admin/replay`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ ids: [id] }),
      });
      expect(await response.json()).toEqual({ moved: 1 });
    },
    /** A webhook to the `hooks` source; resolves to the inbox row's message id. */
    postHook: async (body: object, headers: Record<string, string>) => {
      const response = await fetch(`${service.base}/inbox/hooks`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      });
      expect(response.status).toBe(202);
      return ((await response.json()) as { messageId: string }).messageId;
    },
  };
}
