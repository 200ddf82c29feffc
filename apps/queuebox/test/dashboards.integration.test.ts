import type { ServerResponse } from 'node:http';
import { load } from 'js-yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { e2eServices } from './e2e-services.js';
import { postJson, scrapeText } from './http-calls.js';
import { readRepo } from './repo-files.js';
import { parseScrape, select, selectorsOf, type Sample, type Selector } from './prometheus-text.js';
import { eventually } from './service.js';
import { sinkScenario } from './sink-scenario.js';
import { FAST_RELAY, dropFilter, httpSink, webhookSource } from './yaml-blocks.js';

const { ready, pgUrl } = await e2eServices('app: dashboard and alert rules');

interface Panel {
  readonly id: number;
  readonly type: string;
  readonly title: string;
  readonly datasource?: { readonly uid: string };
  readonly targets?: readonly { readonly expr: string }[];
  readonly panels?: readonly Panel[];
}

interface Rule {
  readonly alert: string;
  readonly expr: string;
  readonly for?: string;
  readonly labels: { readonly severity: string };
  readonly annotations: { readonly summary: string };
}

function dashboardPanels(): Panel[] {
  const dashboard = JSON.parse(readRepo('docker/grafana/queuebox.json')) as {
    panels: Panel[];
  };
  return dashboard.panels.flatMap((panel) => [panel, ...(panel.panels ?? [])]);
}

function alertRules(): Rule[] {
  const file = load(readRepo('docker/prometheus/alerts.yml')) as {
    groups: { name: string; rules: Rule[] }[];
  };
  return file.groups.flatMap((group) => group.rules);
}

/** Every metric selector the two files use, with where it comes from. */
function namedSelectors(): { readonly where: string; readonly selector: Selector }[] {
  const fromPanels = dashboardPanels().flatMap((panel) =>
    (panel.targets ?? []).flatMap((target) =>
      selectorsOf(target.expr).map((selector) => ({ where: `panel '${panel.title}'`, selector })),
    ),
  );
  const fromRules = alertRules().flatMap((rule) =>
    selectorsOf(rule.expr).map((selector) => ({ where: `alert ${rule.alert}`, selector })),
  );
  return [...fromPanels, ...fromRules];
}

describe('the dashboard and alert files', () => {
  it('are well formed: unique ids and names, a query and the datasource variable on every panel', () => {
    const panels = dashboardPanels();
    expect(new Set(panels.map((p) => p.id)).size).toBe(panels.length);
    for (const panel of panels.filter((p) => p.type !== 'row')) {
      expect(panel.datasource?.uid, panel.title).toBe('${datasource}');
      expect(panel.targets?.length ?? 0, panel.title).toBeGreaterThan(0);
    }
    const rules = alertRules();
    expect(new Set(rules.map((r) => r.alert)).size).toBe(rules.length);
    for (const rule of rules) {
      expect(['warning', 'critical'], rule.alert).toContain(rule.labels.severity);
      expect(rule.annotations.summary, rule.alert).not.toBe('');
      if (rule.for !== undefined) expect(rule.for, rule.alert).toMatch(/^\d+[smh]$/);
    }
  });

  it('cover what an operator watches (spec §14 suggested alerts)', () => {
    const metrics = (exprs: string[]) =>
      new Set(exprs.flatMap((e) => selectorsOf(e).map((s) => s.metric)));
    const alerting = metrics(alertRules().map((r) => r.expr));
    for (const metric of [
      'queuebox_outbox_oldest_pending_age_seconds',
      'queuebox_inbox_oldest_pending_age_seconds',
      'queuebox_outbox_messages_total',
      'queuebox_outbox_destination_messages_total',
      'queuebox_claims_lost_total',
      'hikaricp_connections_pending',
      'hikaricp_connections_timeout_total',
      'queuebox_inbox_rejections_total',
      'queuebox_inbox_relay_errors_total',
      'queuebox_cleanup_last_run_timestamp',
    ])
      expect(alerting, metric).toContain(metric);
    const shown = metrics(dashboardPanels().flatMap((p) => (p.targets ?? []).map((t) => t.expr)));
    for (const metric of [
      'queuebox_outbox_messages_total',
      'queuebox_outbox_messages_pending',
      'queuebox_outbox_oldest_pending_age_seconds',
      'queuebox_outbox_publish_duration_seconds',
      'queuebox_inbox_messages_total',
      'queuebox_inbox_rejections_total',
      'queuebox_inbox_oldest_pending_age_seconds',
      'hikaricp_connections_pending',
      'hikaricp_connections_acquire_seconds',
    ])
      expect(shown, metric).toContain(metric);
  });
});

describe.skipIf(!ready)('the dashboard and alert files against a real scrape', () => {
  let held: ServerResponse | undefined;

  const h = sinkScenario({
    pgUrl,
    handler: (request, response) => {
      const mode = (JSON.parse(request.body) as { mode?: string }).mode;
      if (mode === 'hold') held = response;
      else response.writeHead(mode === 'fail' ? 503 : 200).end();
    },
    yaml: (sinkUrl) => `
database:
  poolSize: 2
  connectionTimeoutMs: 1000
outbox:
  pollIntervalMs: 50
  retryBaseDelayMs: 50
  pendingGaugeIntervalMs: 200
${FAST_RELAY}
    pendingGaugeIntervalMs: 200
destinations:
${httpSink(sinkUrl)}
routes:
  - topicPattern: "order.*"
    destination: sink
  - topicPattern: "hook.*"
    destination: sink
sources:
${webhookSource('hooks')}
${dropFilter()}
retention:
  enabled: true
  outbox:
    policy: AGE
    maxAge: 7d
`,
  });
  afterAll(() => held?.destroy());

  const scrape = async (): Promise<Sample[]> => parseScrape(await scrapeText(h.service.base));
  const value = (samples: Sample[], text: string) =>
    select(samples, selectorsOf(text)[0]!).reduce((sum, s) => sum + s.value, 0);
  const insert = (topic: string, mode: string, maxAttempts = 5) =>
    h.db.sql<{ id: string }[]>`
      INSERT INTO outbox (topic, payload, max_attempts)
      VALUES (${topic}, ${h.db.sql.json({ mode })}, ${maxAttempts}) RETURNING id`;
  const post = (body: object, headers: Record<string, string> = {}) =>
    postJson(`${h.service.base}/inbox/hooks`, body, headers);

  it(
    'names only series that a QueueBox exposes once its paths have run',
    { timeout: 90_000 },
    async () => {
      // Outbox: a delivery, retries that end dead, a row no route matches, and a lost claim.
      await insert('order.created', 'ok');
      await insert('order.failing', 'fail', 2);
      await insert('nowhere.created', 'ok');
      const [heldRow] = await insert('order.held', 'hold');
      await eventually(() => held !== undefined);
      await h.db.sql`UPDATE outbox SET claim_token = gen_random_uuid() WHERE id = ${heldRow!.id}`;
      held!.writeHead(200).end();

      // Inbox: stored, duplicate, refused (no idempotency key), filtered, relayed into the outbox.
      expect((await post({ id: 'evt-1', type: 'hook.created' })).status).toBe(202);
      expect((await post({ id: 'evt-1', type: 'hook.created' })).status).toBe(200);
      expect((await post({ type: 'hook.created' })).status).toBe(400);
      expect((await post({ id: 'evt-3', type: 'hook.created' }, { 'X-Drop': '1' })).status).toBe(
        202,
      );

      await eventually(async () => {
        const samples = await scrape();
        return (
          value(samples, 'queuebox_outbox_messages_total{status="dead"}') >= 2 &&
          value(samples, 'queuebox_outbox_messages_total{status="failed"}') >= 1 &&
          value(samples, 'queuebox_claims_lost_total{component="outbox"}') >= 1 &&
          value(samples, 'queuebox_inbox_messages_total{status="forwarded"}') >= 1
        );
      });

      // A store the database refuses: the webhook answers 500 and counts storage_failed.
      await h.db.sql.unsafe(`
      CREATE FUNCTION refuse_marked_key() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.idempotency_key = 'refused-by-the-database' THEN
          RAISE EXCEPTION 'the test refuses this row';
        END IF;
        RETURN NEW;
      END $$;
      CREATE TRIGGER refuse_marked_key BEFORE INSERT ON inbox
        FOR EACH ROW EXECUTE FUNCTION refuse_marked_key();`);
      expect((await post({ id: 'refused-by-the-database', type: 'hook.created' })).status).toBe(
        500,
      );

      // The pool: with both tables locked, the claims of the poller and the relay hold both
      // connections until their answer bound, and the next borrow finds none free: a timeout.
      await h.db.sql.begin(async (tx) => {
        await tx`LOCK TABLE outbox, inbox IN ACCESS EXCLUSIVE MODE`;
        await eventually(
          async () => value(await scrape(), 'hikaricp_connections_timeout_total') >= 1,
        );
      });

      const samples = await scrape();
      expect(
        value(samples, 'queuebox_inbox_rejections_total{reason="storage_failed"}'),
      ).toBeGreaterThanOrEqual(1);
      expect(value(samples, 'hikaricp_connections_acquire_seconds_count')).toBeGreaterThan(0);
      const missing = namedSelectors()
        .filter(({ selector }) => select(samples, selector).length === 0)
        .map(({ where, selector }) => `${where}: ${selector.text}`);
      expect(missing).toEqual([]);
      expect(namedSelectors().length).toBeGreaterThan(30);

      // QueueBox is back once the lock is gone.
      const [after] = await insert('order.after', 'ok');
      await eventually(
        async () =>
          (await h.db.sql`SELECT state FROM outbox WHERE id = ${after!.id}`)[0]?.state === 'sent',
      );
    },
  );
});
