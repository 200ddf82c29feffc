import { createHmac } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  freePort,
  OtlpSpanKind,
  type FreshDatabase,
  type HttpSink,
  type OtlpReceiver,
} from '@queuebox/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { e2eServices } from './e2e-services.js';
import { assertBuilt, startQueueBox, writeConfig, type QueueBoxProcess } from './process.js';
import { suiteScratch } from './scratch.js';
import { openDatabase, openSink, runningProcesses } from './scratch-opens.js';
import { eventually } from './service.js';
import { hex, openReceiver, tracingOn, type TraceReceiver } from './traced-service.js';
import { FAST_RELAY, httpSink, webhookSource } from './yaml-blocks.js';

const { ready, pgUrl } = await e2eServices('app: OpenTelemetry traces end to end');

const SOURCE_SECRET = 'whsec_trace_source_secret_7f3a';
const DESTINATION_TOKEN = 'dest_trace_bearer_token_91c2';
const DB_PASSWORD = 'db_trace_password_55e1';
/** What the failing receiver answers: the sanitizer must redact it before any span holds it. */
const LEAKED_PASSWORD = 'leaked_receiver_password_0d9b';
const SECRETS = [SOURCE_SECRET, DESTINATION_TOKEN, DB_PASSWORD, LEAKED_PASSWORD];

/**
 * Prints each @opentelemetry package the process resolves, once, through Node's in-thread module
 * hooks: the proof that a QueueBox with tracing off loads no SDK package, and that one with
 * tracing on does (so the probe itself can fail). `@opentelemetry/api` is left out: prom-client
 * requires it for its exemplars whatever QueueBox does (the reference's build loads it too), and
 * it is the no-op API, not the SDK.
 */
const PROBE = (() => {
  const dir = mkdtempSync(join(tmpdir(), 'queuebox-otel-probe-'));
  const file = join(dir, 'probe.mjs');
  writeFileSync(
    file,
    `import { registerHooks } from 'node:module';
const seen = new Set();
registerHooks({
  resolve(specifier, context, next) {
    const resolved = next(specifier, context);
    const name = /\\/node_modules\\/@opentelemetry\\/([^/]+)\\//.exec(resolved.url)?.[1];
    if (name !== undefined && name !== 'api' && !seen.has(name)) {
      seen.add(name);
      process.stderr.write('OTEL-MODULE @opentelemetry/' + name + '\\n');
    }
    return resolved;
  },
});
`,
  );
  return file;
})();

function yaml(sink: HttpSink, failing: HttpSink): string {
  return `
${FAST_RELAY}
outbox:
  pollIntervalMs: 50
  maxAttempts: 1
destinations:
${httpSink(sink.url)}
    headers:
      traceparent: 00-${'1'.repeat(32)}-${'2'.repeat(16)}-01
    auth:
      type: header
      headerName: Authorization
      headerValue: Bearer ${DESTINATION_TOKEN}
  failing:
    type: http
    baseUrl: ${failing.url}
routes:
  - topicPattern: "fail.**"
    destination: failing
  - topicPattern: "**"
    destination: sink
sources:
${webhookSource('shop')}
    auth:
      type: hmac
      secret: ${SOURCE_SECRET}
      headerName: X-Signature
`;
}

async function serve(
  db: FreshDatabase,
  config: string,
  otel: Record<string, string>,
  running: QueueBoxProcess[],
): Promise<{ qb: QueueBoxProcess; base: string }> {
  const port = await freePort();
  const qb = startQueueBox([], {
    QUEUEBOX_CONFIG_FILE: writeConfig(config),
    QUEUEBOX_DATABASE_URL: db.jdbcUrl,
    QUEUEBOX_DATABASE_USERNAME: db.user,
    QUEUEBOX_DATABASE_PASSWORD: DB_PASSWORD,
    QUEUEBOX_SERVER_HTTPPORT: String(port),
    NODE_OPTIONS: `--import=${PROBE}`,
    ...otel,
  });
  running.push(qb);
  await qb.waitFor('is listening on port', 30_000);
  return { qb, base: `http://127.0.0.1:${port}` };
}

function signedPost(base: string, body: object, headers: Record<string, string>) {
  const text = JSON.stringify(body);
  const signature = `sha256=${createHmac('sha256', SOURCE_SECRET).update(text).digest('hex')}`;
  return fetch(`${base}/inbox/shop`, {
    method: 'POST',
    body: text,
    headers: { 'Content-Type': 'application/json', 'X-Signature': signature, ...headers },
  });
}

/** Every value of a header as it came over the wire, in any letter case. */
function rawValues(rawHeaders: readonly string[], name: string): string[] {
  const values: string[] = [];
  for (let i = 0; i < rawHeaders.length; i += 2) {
    if (rawHeaders[i]!.toLowerCase() === name) values.push(rawHeaders[i + 1]!);
  }
  return values;
}

describe.skipIf(!ready).each([
  { protocol: 'http/protobuf' as const, contentType: 'application/x-protobuf' },
  { protocol: 'http/json' as const, contentType: 'application/json' },
])('traces over OTLP $protocol', ({ protocol, contentType }) => {
  const scratch = suiteScratch();
  let db: FreshDatabase;
  let sink: HttpSink;
  let traces: TraceReceiver;
  let receiver: OtlpReceiver;
  let base: string;
  let qb: QueueBoxProcess;

  beforeAll(async () => {
    assertBuilt();
    db = await openDatabase(scratch, pgUrl, 'qb_traces');
    sink = await openSink(scratch);
    const failing = await openSink(scratch, (_request, response) => {
      response.writeHead(500, { 'content-type': 'text/plain' });
      response.end(`upstream refused: password=${LEAKED_PASSWORD}`);
    });
    traces = await openReceiver(scratch);
    receiver = traces.receiver;
    // Opened last, so a process still running is killed before the rest closes.
    const running = runningProcesses(scratch);
    ({ qb, base } = await serve(
      db,
      yaml(sink, failing),
      {
        ...tracingOn(protocol),
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_SERVICE_NAME: 'queuebox-trace-test',
        OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
        OTEL_TRACES_SAMPLER_ARG: '1.0',
      },
      running,
    ));
  });

  const span: TraceReceiver['span'] = (find) => traces.span(find);

  it('follows one trace from the webhook through inbox, relay and outbox to the receiver', async () => {
    const traceId = hex(16);
    const senderSpan = hex(8);
    const res = await signedPost(
      base,
      { id: `evt_${traceId}`, type: 'order.paid' },
      { traceparent: `00-${traceId}-${senderSpan}-01`, tracestate: 'shop=a1' },
    );
    expect(res.status).toBe(202);
    const { messageId: inboxId } = (await res.json()) as { messageId: string };

    const delivered = await eventually(() =>
      sink.requests.find((r) => r.headers['x-inbox-id'] === inboxId),
    );
    const receive = await span((s) => s.name === 'receive shop' && s.traceId === traceId);
    const forward = await span((s) => s.name === 'forward shop' && s.traceId === traceId);
    const publish = await span((s) => s.name === 'publish sink' && s.traceId === traceId);

    // One trace, each span the child of the one before, the sender's span at the root.
    expect(receive.parentSpanId).toBe(senderSpan);
    expect(forward.parentSpanId).toBe(receive.spanId);
    expect(publish.parentSpanId).toBe(forward.spanId);
    // The receiver got the publish span's context, once, not the static header's or the row's.
    expect(rawValues(delivered.rawHeaders, 'traceparent')).toEqual([
      `00-${traceId}-${publish.spanId}-01`,
    ]);
    expect(rawValues(delivered.rawHeaders, 'tracestate')).toEqual(['shop=a1']);
    expect(publish.traceState).toBe('shop=a1');

    expect(receive.kind).toBe(OtlpSpanKind.server);
    expect(receive.attributes).toMatchObject({
      'messaging.system': 'http',
      'messaging.operation.type': 'receive',
      'messaging.destination.name': 'shop',
      'messaging.message.id': inboxId,
      'queuebox.dedup': 'new',
      'queuebox.outcome': 'stored',
      'http.response.status_code': 202,
    });
    expect(forward.kind).toBe(OtlpSpanKind.producer);
    expect(forward.attributes).toMatchObject({
      'messaging.destination.name': 'order.paid',
      'messaging.message.id': delivered.headers['x-message-id'],
      'queuebox.inbox.id': inboxId,
      'queuebox.outcome': 'forwarded',
    });
    expect(publish.kind).toBe(OtlpSpanKind.producer);
    expect(publish.attributes).toMatchObject({
      'messaging.system': 'http',
      'messaging.operation.type': 'send',
      'messaging.operation.name': 'publish',
      'messaging.destination.name': 'sink',
      'messaging.message.id': delivered.headers['x-message-id'],
      'queuebox.topic': 'order.paid',
      'queuebox.attempt': 0,
      'queuebox.outcome': 'sent',
    });
    expect(publish.events.map((e) => e.name)).toEqual(['queuebox.claim', 'queuebox.complete']);
    expect(publish.events[1]!.attributes).toEqual({ 'queuebox.outcome': 'sent' });
    expect(publish.status.code).toBe(0);
    expect(publish.resource['service.name']).toBe('queuebox-trace-test');

    // The same webhook again: a receive span that says duplicate.
    const again = await signedPost(
      base,
      { id: `evt_${traceId}`, type: 'order.paid' },
      { traceparent: `00-${traceId}-${hex(8)}-01` },
    );
    expect(again.status).toBe(200);
    const duplicate = await span(
      (s) => s.name === 'receive shop' && s.traceId === traceId && s.spanId !== receive.spanId,
    );
    expect(duplicate.attributes['queuebox.dedup']).toBe('duplicate');
  });

  it("continues an outbox row's own traceparent, in any letter case, and sends one copy", async () => {
    const traceId = hex(16);
    const appSpan = hex(8);
    const [row] = await db.sql.unsafe<{ id: string }[]>(
      `INSERT INTO outbox (topic, payload, headers) VALUES ('app.event', '{"n":1}', $1::text::jsonb) RETURNING id`,
      [JSON.stringify({ TraceParent: `00-${traceId}-${appSpan}-01`, 'x-app': 'kept' })],
    );
    const delivered = await eventually(() =>
      sink.requests.find((r) => r.headers['x-message-id'] === row!.id),
    );
    const publish = await span((s) => s.name === 'publish sink' && s.traceId === traceId);
    expect(publish.parentSpanId).toBe(appSpan);
    expect(publish.attributes['messaging.message.id']).toBe(row!.id);
    expect(rawValues(delivered.rawHeaders, 'traceparent')).toEqual([
      `00-${traceId}-${publish.spanId}-01`,
    ]);
    expect(delivered.headers['x-app']).toBe('kept');
  });

  it('records a failed publish with the sanitized error only', async () => {
    const traceId = hex(16);
    await db.sql.unsafe(
      `INSERT INTO outbox (topic, payload, headers, max_attempts) VALUES ('fail.now', '{"n":2}', $1::text::jsonb, 0)`,
      [JSON.stringify({ traceparent: `00-${traceId}-${hex(8)}-01` })],
    );
    const publish = await span((s) => s.name === 'publish failing' && s.traceId === traceId);
    expect(publish.status.code).toBe(2);
    expect(publish.status.message).toContain('500');
    expect(publish.status.message).not.toContain(LEAKED_PASSWORD);
    expect(publish.attributes['queuebox.outcome']).toBe('dead');
  });

  it('sends every span over the configured protocol, and no secret in any of them', async () => {
    await eventually(() => receiver.spans().length >= 5);
    expect(receiver.errors).toEqual([]);
    expect(new Set(receiver.exports.map((e) => e.contentType))).toEqual(new Set([contentType]));
    const text = JSON.stringify(receiver.spans(), (_key, value: unknown) =>
      typeof value === 'bigint' ? value.toString() : value,
    );
    for (const secret of SECRETS) expect(text).not.toContain(secret);
    for (const name of ['sdk-trace', 'exporter-trace-otlp-proto', 'exporter-trace-otlp-http'])
      expect(qb.output()).toContain(`OTEL-MODULE @opentelemetry/${name}\n`);
  });

  it('exports what is buffered when it stops', async () => {
    const traceId = hex(16);
    await db.sql.unsafe(
      `INSERT INTO outbox (topic, payload, headers) VALUES ('last.one', '{"n":3}', $1::text::jsonb)`,
      [JSON.stringify({ traceparent: `00-${traceId}-${hex(8)}-01` })],
    );
    await eventually(() => sink.requests.find((r) => r.headers['x-topic'] === 'last.one'));
    qb.child.kill('SIGTERM');
    const exit = await qb.exited;
    expect(exit.code).toBe(0);
    expect(receiver.spans().some((s) => s.traceId === traceId)).toBe(true);
  });
});

describe.skipIf(!ready)('tracing off (the default)', () => {
  const scratch = suiteScratch();
  let db: FreshDatabase;
  let sink: HttpSink;
  let running: QueueBoxProcess[];

  beforeAll(async () => {
    assertBuilt();
    db = await openDatabase(scratch, pgUrl, 'qb_traces_off');
    sink = await openSink(scratch);
    running = runningProcesses(scratch);
  });

  it('loads no OpenTelemetry SDK package, and a traceparent is an ordinary header', async () => {
    const { qb, base } = await serve(
      db,
      `
outbox:
  pollIntervalMs: 50
destinations:
${httpSink(sink.url)}
routes:
  - topicPattern: "**"
    destination: sink
sources:
${webhookSource('shop')}
`,
      // The exporter's own variables without OTEL_TRACES_EXPORTER: still off.
      { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' },
      running,
    );
    const traceparent = `00-${hex(16)}-${hex(8)}-01`;
    const res = await fetch(`${base}/inbox/shop`, {
      method: 'POST',
      body: JSON.stringify({ id: 'evt_off', type: 'off.event' }),
      headers: { 'Content-Type': 'application/json', traceparent },
    });
    expect(res.status).toBe(202);
    const delivered = await eventually(() =>
      sink.requests.find((r) => r.headers['x-topic'] === 'off.event'),
    );
    // The sender's header went through the inbox and the relay as it came.
    expect(rawValues(delivered.rawHeaders, 'traceparent')).toEqual([traceparent]);
    qb.child.kill('SIGTERM');
    const exit = await qb.exited;
    expect(exit.code).toBe(0);
    expect(exit.stderr).not.toContain('OTEL-MODULE');
    expect(exit.stdout).not.toContain('OTEL-MODULE');
  });

  it('refuses an exporter it does not have, naming the variable', async () => {
    const qb = startQueueBox([], {
      QUEUEBOX_CONFIG_FILE: writeConfig('outbox:\n  pollIntervalMs: 50\n'),
      QUEUEBOX_DATABASE_URL: db.jdbcUrl,
      QUEUEBOX_DATABASE_USERNAME: db.user,
      QUEUEBOX_DATABASE_PASSWORD: DB_PASSWORD,
      QUEUEBOX_SERVER_HTTPPORT: String(await freePort()),
      OTEL_TRACES_EXPORTER: 'zipkin',
    });
    running.push(qb);
    const exit = await qb.exited;
    expect(exit.code).not.toBe(0);
    expect(exit.stdout + exit.stderr).toContain('OTEL_TRACES_EXPORTER');
    expect(exit.stdout + exit.stderr).toContain('zipkin');
  });
});
