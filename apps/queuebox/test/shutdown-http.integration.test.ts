import { connect, type Socket } from 'node:net';
import type { ServerResponse } from 'node:http';
import { requireService, type SinkRequest } from '@queuebox/testing';
import { describe, expect, it } from 'vitest';
import { terminateQueueBox, type QueueBoxProcess } from './process.js';
import { servedOnDatabase } from './process-suite.js';
import { everyOutboxRowSent } from './e2e-rows.js';
import { eventually } from './service.js';
import { ORDERS_SOURCE, RELAY_OFF, sinkRoute } from './yaml-pieces.js';

const pg = await requireService('postgres', 'app: SIGTERM with HTTP work in flight (spec §17.2)');

const SHUTDOWN_TIMEOUT_MS = 3000;
const CLAIM_TIMEOUT_MS = 5000;
/** Spec §17.2: drain ≤ 5 s, then the poller ≤ outbox.shutdownTimeoutMs; the rest is slack. */
const EXIT_BOUND_MS = 5000 + 2 * SHUTDOWN_TIMEOUT_MS;
/**
 * With a request that never ends, the drain's 5 s come first, then the servers' stop (grace
 * 5000 ms, timeout max(outbox.shutdownTimeoutMs, 5000)), then the poller's wait.
 */
const STUCK_BOUND_MS = 5000 + Math.max(SHUTDOWN_TIMEOUT_MS, 5000) + SHUTDOWN_TIMEOUT_MS;

/**
 * Spec §17.2 with real work in flight, on the built app: deliveries held by a slow destination
 * when SIGTERM comes (those that finish inside the poller's wait are `sent`, the rest stay
 * `processing` for the reclaim step and a second start delivers them), and an inbound webhook
 * still streaming its body (it completes; a request that arrives during the drain gets 503).
 */
describe.skipIf(!pg.available)('SIGTERM with HTTP work in flight', () => {
  const h = servedOnDatabase(pg.available ? pg.url : '', { prefix: 'qb_shutdown_http' });

  const start = () =>
    h.serve(`
outbox:
  pollIntervalMs: 50
  concurrency: 8
  claimTimeoutMs: ${CLAIM_TIMEOUT_MS}
  shutdownTimeoutMs: ${SHUTDOWN_TIMEOUT_MS}
${RELAY_OFF}${sinkRoute(h.sink.url, { name: 'slow', path: '/events', timeoutMs: 60000 })}${ORDERS_SOURCE}`);

  const terminate = (qb: QueueBoxProcess) => terminateQueueBox(qb, 2 * STUCK_BOUND_MS);

  it('marks the deliveries that finish during the wait sent, leaves the rest processing, and a second start delivers them', async () => {
    const { db, sink } = h;
    const held: { request: SinkRequest; response: ServerResponse }[] = [];
    sink.handle((request, response) => {
      held.push({ request, response });
    });
    const first = await start();
    // Eight keyless rows, all in flight at once (concurrency 8): four get their answer after
    // SIGTERM, while the poller waits for them; four never get one while this process lives.
    const rows = await db.sql<{ id: string; group: string }[]>`
      INSERT INTO outbox (topic, payload)
      SELECT 'order.placed', jsonb_build_object('n', n, 'group', CASE WHEN n % 2 = 0 THEN 'finish' ELSE 'hang' END)
      FROM generate_series(1, 8) AS n
      RETURNING id::text AS id, payload->>'group' AS group`;
    await eventually(() => held.length === 8, 20_000);

    const stopping = terminate(first.qb);
    await first.qb.waitFor('Shutting down QueueBox...');
    for (const { request, response } of held)
      if ((JSON.parse(request.body) as { group: string }).group === 'finish')
        response.writeHead(200).end('ok');
    const result = await stopping;
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Shutdown complete');
    expect(result.elapsed).toBeLessThan(EXIT_BOUND_MS);

    const states = await db.sql<{ id: string; state: string }[]>`
      SELECT id::text AS id, state FROM outbox`;
    const stateOf = new Map(states.map((row) => [row.id, row.state]));
    for (const row of rows)
      expect([row.group, stateOf.get(row.id)]).toEqual([
        row.group,
        row.group === 'finish' ? 'sent' : 'processing',
      ]);

    // The abandoned requests end with the process; the next start answers at once.
    for (const { response } of held) if (!response.writableEnded) response.destroy();
    sink.handle((_request, response) => {
      response.writeHead(200).end('ok');
    });
    const second = await start();
    await everyOutboxRowSent(db, 30_000);
    // A finished delivery is never repeated; an abandoned one comes once more, after its lease.
    const deliveries = (id: string) =>
      sink.requests.filter((request) => request.headers['x-message-id'] === id).length;
    for (const row of rows)
      expect([row.group, deliveries(row.id)]).toEqual([row.group, row.group === 'finish' ? 1 : 2]);
    expect((await terminate(second.qb)).code).toBe(0);
  }, 60_000);

  it('lets a webhook that is still sending its body finish, and answers a request during the drain with 503 JSON', async () => {
    const { db } = h;
    const { qb, base } = await start();
    const body = JSON.stringify({ id: 'slow-webhook', padding: 'x'.repeat(2000) });
    const half = body.length / 2;
    const port = Number(new URL(base).port);
    const socket = connect(port, '127.0.0.1');
    const answer = rawAnswer(socket);
    socket.write(
      `POST /inbox/orders HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body.slice(0, half)}`,
    );
    // The request is running (headers in, body half read) before the signal.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const stopping = terminate(qb);
    await qb.waitFor('Shutting down QueueBox...');

    const during = await fetch(`${base}/inbox/orders`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ id: 'during-drain' }),
    });
    expect(during.status).toBe(503);
    expect(during.headers.get('content-type')).toContain('application/json');
    expect(await during.json()).toEqual({ error: 'QueueBox is shutting down' });

    socket.write(body.slice(half));
    const { status, text } = await answer;
    expect(status).toBe(202);
    const { messageId } = JSON.parse(text) as { messageId: string };

    const result = await stopping;
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Shutdown complete');
    expect(result.stdout).not.toContain('were still running after');
    expect(result.elapsed).toBeLessThan(EXIT_BOUND_MS);
    const stored = await db.sql<{ id: string; key: string }[]>`
      SELECT id::text AS id, idempotency_key AS key FROM inbox ORDER BY created_at`;
    expect(stored).toEqual([{ id: messageId, key: 'slow-webhook' }]);
  }, 60_000);

  it('gives a webhook that never finishes its body 5 s, logs how many were still running, and exits 0', async () => {
    const { db } = h;
    const { qb, base } = await start();
    const socket = connect(Number(new URL(base).port), '127.0.0.1');
    socket.on('error', () => undefined);
    socket.write(
      `POST /inbox/orders HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n` +
        `Content-Length: 1000\r\n\r\n{"id":"never-finished",`,
    );
    await new Promise((resolve) => setTimeout(resolve, 500));
    const started = performance.now();
    const stopping = terminate(qb);
    await qb.waitFor('were still running after', 15_000);
    // Spec §17.2 step 1: the drain waits 5000 ms for running requests, no longer.
    expect(performance.now() - started).toBeGreaterThanOrEqual(4500);
    const result = await stopping;
    socket.destroy();
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      '1 HTTP request(s) were still running after 5000 ms of draining.',
    );
    expect(result.stdout).toContain('Shutdown complete');
    expect(result.elapsed).toBeLessThan(STUCK_BOUND_MS);
    const [row] = await db.sql<{ n: number }[]>`
      SELECT count(*)::int AS n FROM inbox WHERE idempotency_key = 'never-finished'`;
    expect(row!.n).toBe(0);
  }, 60_000);
});

/** The status and body of the one HTTP/1.1 answer a raw socket receives. */
function rawAnswer(socket: Socket): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    let raw = '';
    socket.on('data', (chunk: Buffer) => {
      raw += chunk.toString('utf8');
      const end = raw.indexOf('\r\n\r\n');
      if (end < 0) return;
      const head = raw.slice(0, end);
      const length = Number(/content-length: *(\d+)/i.exec(head)?.[1] ?? NaN);
      const text = raw.slice(end + 4);
      if (Buffer.byteLength(text) >= length) {
        socket.destroy();
        resolve({ status: Number(head.split(' ')[1]), text });
      }
    });
    socket.on('error', reject);
    socket.on('close', () => reject(new Error(`the connection closed after: ${raw}`)));
  });
}
