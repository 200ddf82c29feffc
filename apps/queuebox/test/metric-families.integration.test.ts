import { afterAll, describe, expect, it } from 'vitest';
import { e2eServices } from './e2e-services.js';
import { postJson, scrapeText } from './http-calls.js';
import { eventually } from './service.js';
import { sinkScenario } from './sink-scenario.js';
import { FAST_RELAY, dropFilter, httpSink, webhookSource } from './yaml-blocks.js';

const { ready, pgUrl } = await e2eServices('app: metric families');

/** One family of the scrape as a dashboard sees it. */
interface Family {
  readonly type: string;
  readonly help: string;
  /** Label names over every sample of the family (`quantile` included for a summary). */
  readonly labels: readonly string[];
  /** The quantiles a summary prints, as their label values. */
  readonly quantiles?: readonly string[];
}

/**
 * Every family a running QueueBox exposes, with its type, help text and label names, captured
 * from a scrape of this test's configuration on main before the metrics were handed to the
 * services through core's `Metrics` port. Dashboards and alerts built on 0.8.1 read these (spec
 * §14), so a change here is a breaking change, never a refactoring detail.
 */
const PINNED: Readonly<Record<string, Family>> = {
  hikaricp_connections_max: {
    type: 'gauge',
    help: 'Max connections',
    labels: ['pool'],
  },
  hikaricp_connections_min: {
    type: 'gauge',
    help: 'Min idle connections',
    labels: ['pool'],
  },
  // Since issue 16: measured in QueueBox's own connection borrowing.
  hikaricp_connections_pending: {
    type: 'gauge',
    help: 'Pending threads',
    labels: ['pool'],
  },
  hikaricp_connections_acquire_seconds: {
    type: 'summary',
    help: 'Connection acquire time',
    labels: ['pool', 'quantile'],
    quantiles: ['0.5', '0.95', '0.99'],
  },
  hikaricp_connections_acquire_seconds_max: {
    type: 'gauge',
    help: 'Connection acquire time',
    labels: ['pool'],
  },
  hikaricp_connections_timeout_total: {
    type: 'counter',
    help: 'Connection timeout total count',
    labels: ['pool'],
  },
  queuebox: {
    type: 'gauge',
    help: 'QueueBox build information',
    labels: ['version'],
  },
  // Since issue 14; a series exists only while a durable slot of the configured name does.
  queuebox_capture_durable_slot_retained_bytes: {
    type: 'gauge',
    help: 'WAL bytes a durable replication slot of outbox.capture.slot retains (left by QueueBox 0.8.1; drop it)',
    labels: [],
  },
  // Since the capture-cost work; series only in the process that runs capture.
  queuebox_capture_feed_state: {
    type: 'gauge',
    help: "Capture's change feed: 1 for the state it is in (streaming, paused while the outbox poller is busy, down), 0 for the others",
    labels: [],
  },
  queuebox_claims_lost_total: {
    type: 'counter',
    help: 'Terminal writes that lost their claim',
    labels: ['component'],
  },
  queuebox_cleanup_duration_seconds: {
    type: 'summary',
    help: 'Duration of one retention cleanup run',
    labels: ['quantile', 'table'],
    quantiles: ['0.5', '0.95', '0.99'],
  },
  queuebox_cleanup_duration_seconds_max: {
    type: 'gauge',
    help: 'Duration of one retention cleanup run',
    labels: ['table'],
  },
  queuebox_cleanup_last_run_timestamp: {
    type: 'gauge',
    help: 'Unix seconds of the last retention cleanup run',
    labels: ['table'],
  },
  queuebox_cleanup_messages_deleted_total: {
    type: 'counter',
    help: 'Rows deleted by retention cleanup',
    labels: ['table'],
  },
  queuebox_http_publish_responses_total: {
    type: 'counter',
    help: 'HTTP destination responses by status class',
    labels: ['status_class'],
  },
  queuebox_inbox_filtered_total: {
    type: 'counter',
    help: 'Inbox messages dropped by a source header filter',
    labels: ['source'],
  },
  queuebox_inbox_messages_total: {
    type: 'counter',
    help: 'Inbox messages: new (stored), duplicate (dedup hit), forwarded (relay success)',
    labels: ['status'],
  },
  queuebox_inbox_oldest_pending_age_seconds: {
    type: 'gauge',
    help: 'Age of the oldest pending inbox message (push and pull) in seconds (0 when none)',
    labels: [],
  },
  queuebox_inbox_rejections_total: {
    type: 'counter',
    help: 'Inbox messages refused: missing key, transform rejection, store error',
    labels: ['reason'],
  },
  queuebox_inbox_relay_errors_total: {
    type: 'counter',
    help: 'Relay cycle errors, forward failures and empty-topic dead letters',
    labels: [],
  },
  queuebox_outbox_destination_messages_total: {
    type: 'counter',
    help: 'Outbox publishes per destination and outcome',
    labels: ['destination', 'outcome'],
  },
  queuebox_outbox_messages_pending: {
    type: 'gauge',
    help: 'Pending outbox messages',
    labels: [],
  },
  queuebox_outbox_messages_reclaimed_total: {
    type: 'counter',
    help: 'Outbox messages returned to pending because their lease expired',
    labels: [],
  },
  queuebox_outbox_messages_total: {
    type: 'counter',
    help: 'Outbox messages by outcome: sent, failed (retry scheduled) or dead',
    labels: ['status'],
  },
  queuebox_outbox_oldest_pending_age_seconds: {
    type: 'gauge',
    help: 'Age of the oldest pending outbox message in seconds (0 when none)',
    labels: [],
  },
  queuebox_outbox_process_errors_total: {
    type: 'counter',
    help: 'Exceptions that stopped the processing of one outbox message',
    labels: [],
  },
  queuebox_outbox_processing_duration_seconds: {
    type: 'summary',
    help: 'Time to process one outbox message',
    labels: ['quantile'],
    quantiles: ['0.5', '0.95', '0.99'],
  },
  queuebox_outbox_processing_duration_seconds_max: {
    type: 'gauge',
    help: 'Time to process one outbox message',
    labels: [],
  },
  queuebox_outbox_publish_duration_seconds: {
    type: 'summary',
    help: 'Time of one publish to a destination',
    labels: ['destination_type', 'quantile'],
    quantiles: ['0.5', '0.95', '0.99'],
  },
  queuebox_outbox_publish_duration_seconds_max: {
    type: 'gauge',
    help: 'Time of one publish to a destination',
    labels: ['destination_type'],
  },
  queuebox_outbox_queue_depth: {
    type: 'gauge',
    help: 'Messages currently being published to a destination',
    labels: ['destination'],
  },
  queuebox_transform_failures_total: {
    type: 'counter',
    help: 'Route and destination transform failures by strategy',
    labels: ['strategy'],
  },
  queuebox_uptime_seconds: {
    type: 'gauge',
    help: 'Seconds since the QueueBox process started',
    labels: [],
  },
};

/** Parses a Prometheus text scrape into families; samples are attributed to their family. */
function familiesOf(text: string): Record<string, Family> {
  const types = new Map<string, string>();
  const helps = new Map<string, string>();
  const labels = new Map<string, Set<string>>();
  const quantiles = new Map<string, Set<string>>();
  const lines = text.split('\n');
  for (const line of lines) {
    const type = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (type) types.set(type[1]!, type[2]!);
    const help = /^# HELP (\S+) (.*)$/.exec(line);
    if (help) helps.set(help[1]!, help[2]!);
  }
  for (const line of lines) {
    if (line === '' || line.startsWith('#')) continue;
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? \S+$/.exec(line);
    if (!sample) throw new Error(`not a sample line: ${line}`);
    const family = familyOfSample(sample[1]!, types);
    const names = labels.get(family) ?? new Set<string>();
    labels.set(family, names);
    for (const pair of (sample[2] ?? '').matchAll(
      /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g,
    )) {
      names.add(pair[1]!);
      if (pair[1] === 'quantile') {
        const seen = quantiles.get(family) ?? new Set<string>();
        quantiles.set(family, seen);
        seen.add(pair[2]!);
      }
    }
  }
  const out: Record<string, Family> = {};
  for (const [name, type] of [...types].sort(([a], [b]) => a.localeCompare(b))) {
    const quantileValues = quantiles.get(name);
    out[name] = {
      type,
      help: helps.get(name) ?? '',
      labels: [...(labels.get(name) ?? [])].sort(),
      ...(quantileValues ? { quantiles: [...quantileValues].sort() } : {}),
    };
  }
  return out;
}

function familyOfSample(sample: string, types: ReadonlyMap<string, string>): string {
  if (types.has(sample)) return sample;
  for (const suffix of ['_sum', '_count']) {
    const base = sample.slice(0, -suffix.length);
    if (sample.endsWith(suffix) && types.get(base) === 'summary') return base;
  }
  throw new Error(`sample ${sample} belongs to no family of the scrape`);
}

/**
 * One real service on a real database and a real HTTP sink, driven down every path that gives a
 * labelled family its first sample: delivery, a skipped transform, a claim lost after a publish,
 * new / duplicate / refused / filtered webhooks, a relay forward, and both retention cleanups.
 */
describe.skipIf(!ready)('the metric families of a running QueueBox', () => {
  let releaseHeld: () => void = () => undefined;
  const held = new Promise<void>((resolve) => {
    releaseHeld = resolve;
  });
  const h = sinkScenario({
    pgUrl,
    handler: async (request, response) => {
      // The `order.held` publish waits until the test has taken its claim away.
      if (request.headers['x-topic'] === 'order.held') await held;
      response.writeHead(200).end('ok');
    },
    yaml: (sinkUrl) => `
outbox:
  pollIntervalMs: 50
${FAST_RELAY}
destinations:
${httpSink(sinkUrl)}
routes:
  - topicPattern: "skip.*"
    destination: sink
    transform:
      expression: "$error('refused')"
      onError: Skip
  - topicPattern: "**"
    destination: sink
sources:
${webhookSource('hooks')}
${dropFilter()}
retention:
  enabled: true
  outbox:
    policy: AGE
    maxAge: 7d
  inbox:
    policy: AGE
    maxAge: 7d
`,
  });
  afterAll(() => releaseHeld());

  const insert = async (topic: string): Promise<string> => {
    const [row] = await h.db.sql<{ id: string }[]>`
      INSERT INTO outbox (topic, payload) VALUES (${topic}, '{"n": 1}'::jsonb) RETURNING id`;
    return row!.id;
  };
  const stateOf = async (id: string): Promise<string | undefined> =>
    (await h.db.sql<{ state: string }[]>`SELECT state FROM outbox WHERE id = ${id}`)[0]?.state;
  const post = (body: object, headers: Record<string, string> = {}) =>
    postJson(`${h.service.base}/inbox/hooks`, body, headers);

  it('exposes exactly the pinned families, types, help texts and label names', async () => {
    const sent = await insert('order.created');
    const skipped = await insert('skip.me');
    await eventually(async () => (await stateOf(sent)) === 'sent');
    await eventually(async () => (await stateOf(skipped)) === 'sent');

    // A claim lost after the publish: the fence of markSent no longer holds.
    const lost = await insert('order.held');
    await eventually(() => h.sink.requests.some((r) => r.headers['x-topic'] === 'order.held'));
    await h.db.sql`UPDATE outbox SET claim_token = gen_random_uuid() WHERE id = ${lost}`;
    releaseHeld();

    expect((await post({ id: 'evt-1', type: 'hook.created' })).status).toBe(202);
    expect((await post({ id: 'evt-1', type: 'hook.created' })).status).toBe(200);
    expect((await post({ type: 'hook.created' })).status).toBe(400);
    expect((await post({ id: 'evt-2' }, { 'X-Drop': 'yes' })).status).toBe(202);
    await eventually(() => h.sink.requests.some((r) => r.headers['x-topic'] === 'hook.created'));

    const scrape = async () => familiesOf(await scrapeText(h.service.base));
    const families = await eventually(async () => {
      const now = await scrape();
      const ready =
        now.queuebox_claims_lost_total?.labels.includes('component') &&
        now.queuebox_inbox_messages_total?.labels.includes('status') &&
        now.queuebox_cleanup_last_run_timestamp?.labels.includes('table');
      return ready ? now : undefined;
    });
    expect(families).toEqual(PINNED);
  });
});
