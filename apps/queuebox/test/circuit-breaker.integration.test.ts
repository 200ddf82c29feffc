import type { ServerResponse } from 'node:http';
import {
  RecordingLogger,
  type FaultProxy,
  type FreshDatabase,
  type HttpSink,
} from '@queuebox/testing';
import { beforeEach, describe, expect, it } from 'vitest';
import { e2eServices } from './e2e-services.js';
import { scrapeText } from './http-calls.js';
import { testScratch } from './scratch.js';
import {
  openDatabase,
  openProxy,
  openService,
  openSink,
  type TestService,
} from './scratch-opens.js';
import { eventually } from './service.js';

/**
 * The circuit breaker in the running service, on real PostgreSQL, with a real HTTP receiver
 * that fails on command behind the TCP fault proxy: an outage of one destination costs its rows
 * no attempt once the circuit is open, they are all delivered after the receiver is back, and
 * the other destination's rows go on being delivered meanwhile. No timing is asserted.
 */
const { ready, pgUrl } = await e2eServices('app: circuit breaker');

const ok = (response: ServerResponse) => response.writeHead(200).end('ok');
const unavailable = (response: ServerResponse) => response.writeHead(503).end('down');

describe.skipIf(!ready)('circuit breaker on PostgreSQL with a failing receiver', () => {
  const scratch = testScratch();
  let db: FreshDatabase;
  let partner: HttpSink;
  let other: HttpSink;
  let proxy: FaultProxy;
  let service: TestService;
  let logger: RecordingLogger;
  let fail: ((response: ServerResponse) => void) | null;

  beforeEach(async () => {
    db = await openDatabase(scratch, pgUrl, 'qb_circuit');
    fail = null;
    partner = await openSink(scratch, (_request, response) => (fail ?? ok)(response));
    other = await openSink(scratch);
    proxy = await openProxy(scratch, { host: '127.0.0.1', port: partner.port });
    logger = new RecordingLogger();
    service = await openService(
      scratch,
      db,
      `
outbox:
  pollIntervalMs: 50
  retryBaseDelayMs: 100
destinations:
  partner:
    type: http
    baseUrl: http://127.0.0.1:${proxy.port}
    timeoutMs: 2000
    circuitBreaker:
      failureThreshold: 3
      openMs: 300
  other:
    type: http
    baseUrl: ${other.url}
routes:
  - topicPattern: "partner.**"
    destination: partner
  - topicPattern: "**"
    destination: other
`,
      { QUEUEBOX_HTTP_BLOCKPRIVATEADDRESSES: 'false' },
      { logger },
    );
  });

  async function insert(prefix: string, count: number): Promise<void> {
    const rows = Array.from({ length: count }, (_, i) => ({
      topic: `${prefix}.${i}`,
      payload: { i },
    }));
    for (const row of rows) {
      await db.sql`INSERT INTO outbox (topic, payload) VALUES (${row.topic}, ${db.sql.json(row.payload)})`;
    }
  }

  async function partnerRows() {
    const [row] = await db.sql<
      { attempts: number; dead: number; processing: number; sent: number; total: number }[]
    >`SELECT coalesce(sum(attempt), 0)::int AS attempts,
             count(*) FILTER (WHERE state = 'dead')::int AS dead,
             count(*) FILTER (WHERE state = 'processing')::int AS processing,
             count(*) FILTER (WHERE state = 'sent')::int AS sent,
             count(*)::int AS total
      FROM outbox WHERE topic LIKE 'partner.%'`;
    return row!;
  }

  async function sentTo(prefix: string): Promise<number> {
    const [row] = await db.sql<{ n: number }[]>`
      SELECT count(*)::int AS n FROM outbox WHERE state = 'sent' AND topic LIKE ${`${prefix}.%`}`;
    return row!.n;
  }

  async function circuitState(): Promise<string | undefined> {
    const text = await scrapeText(service.base);
    return /^queuebox_destination_circuit_state\{destination="partner"\} (\d+)$/m.exec(text)?.[1];
  }

  async function readiness() {
    const response = await fetch(`${service.base}/health/ready`);
    const body = (await response.json()) as { components: Record<string, { status: string }> };
    return { status: response.status, circuit: body.components['destination-circuit-partner'] };
  }

  /** Waits until the open circuit has let `probes` more probe publishes fail, none counted. */
  async function probesFailed(probes: number): Promise<void> {
    const seen = logger.messages('info').filter((m) => m.includes('is half-open')).length;
    await eventually(
      () =>
        logger.messages('info').filter((m) => m.includes('is half-open')).length >= seen + probes,
    );
  }

  async function outageCostsNoAttempts(recover: () => void): Promise<void> {
    await insert('partner', 30);
    await insert('other', 30);
    await eventually(async () => (await circuitState()) === '1');
    expect(logger.messages('warn')).toContain(
      "The circuit of destination 'partner' opened for 300 ms: 3 publishes in a row failed. Its messages wait, and no attempt is counted while it is open.",
    );
    // The publishes in flight when it opened are ordinary attempts; wait until they are written.
    await eventually(async () => (await partnerRows()).processing === 0);
    const before = await partnerRows();
    expect(before.attempts).toBeGreaterThan(0);

    // The other destination keeps flowing during the outage, new rows included.
    await insert('other.late', 20);
    await eventually(async () => (await sentTo('other')) === 50);
    await probesFailed(3);
    const during = await partnerRows();
    expect(during.attempts).toBe(before.attempts);
    expect(during.dead).toBe(0);
    const ready = await readiness();
    expect(ready.status).toBe(200);
    expect(ready.circuit).toEqual({ status: 'down' });

    recover();
    await eventually(async () => (await partnerRows()).sent === 30, 30_000);
    const after = await partnerRows();
    expect(after.attempts).toBe(before.attempts);
    expect(after.dead).toBe(0);
    expect(await circuitState()).toBe('0');
    expect((await readiness()).circuit).toEqual({ status: 'up' });
    expect(logger.messages('info')).toContain(
      "The circuit of destination 'partner' closed: the probe publish succeeded. Its messages flow again.",
    );
  }

  it('spends no attempt while a receiver answering 503 is down, and delivers after', async () => {
    fail = unavailable;
    await outageCostsNoAttempts(() => {
      fail = null;
    });
  });

  it('spends no attempt while the receiver refuses connections, and delivers after', async () => {
    proxy.refuse();
    proxy.cut();
    await outageCostsNoAttempts(() => proxy.restore());
  });

  it('honours a 429 Retry-After for that destination only', async () => {
    let answered429 = 0;
    fail = (response) => {
      answered429++;
      fail = null; // Once: the receiver asks for a pause, then takes everything.
      response.writeHead(429, { 'retry-after': '1' }).end('slow down');
    };
    await insert('partner', 1);
    await eventually(async () => (await circuitState()) === '1');
    expect(answered429).toBe(1);
    expect(logger.messages('warn')).toContain(
      "The circuit of destination 'partner' opened for 1000 ms: the destination answered with Retry-After. Its messages wait, and no attempt is counted while it is open.",
    );
    const requestsWhileOpen = partner.requests.length;
    await insert('partner.more', 10);
    await insert('other', 10);
    await eventually(async () => (await sentTo('other')) === 10);
    // Open for the whole second: nothing more went to the partner meanwhile, unless it is over.
    if ((await circuitState()) === '1') expect(partner.requests.length).toBe(requestsWhileOpen);
    await eventually(async () => (await partnerRows()).sent === 11, 30_000);
    // The 429 itself was an attempt (its row retried once); the rows behind it were not tried.
    expect((await partnerRows()).attempts).toBe(1);
  });
});
