import { existsSync } from 'node:fs';
import { serviceRequired } from '@queuebox/testing';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { e2eServices } from './e2e-services.js';
import { eventually } from './service.js';
import { sinkScenario } from './sink-scenario.js';
import { RELAY_OFF, httpSink } from './yaml-blocks.js';

const { ready, pgUrl } = await e2eServices('app: console in a browser');

/** Debian's chromium; QUEUEBOX_TEST_REQUIRE=chromium (set by .ci/run) makes its absence fail. */
const CHROMIUM = '/usr/bin/chromium';
const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) {
  const reason = `${CHROMIUM} is missing (apt-get install -y chromium)`;
  if (serviceRequired('chromium'))
    throw new Error(
      `app: console in a browser: QUEUEBOX_TEST_REQUIRE names chromium, but ${reason}.`,
    );
  console.warn(`Skipping app: console in a browser: ${reason}.`);
}
/** The page's script is served from the build; a missing one would fail every step below. */
const SCRIPT = new URL('../dist/console/app.js', import.meta.url);

const TOKEN = 'console-browser-token';
/** Where the screenshot for docs/console.md goes, when asked for. */
const SCREENSHOT = process.env.QUEUEBOX_CONSOLE_SCREENSHOT;

describe.skipIf(!ready || !hasChromium)('the console page in Chromium', () => {
  let browser: Browser;
  let page: Page;
  let failing = true;

  beforeAll(() => {
    expect(existsSync(SCRIPT), 'the console script is built (pnpm build)').toBe(true);
  });
  const h = sinkScenario({
    pgUrl,
    // The sink refuses every delivery until the test repairs it, so rows with one attempt die.
    handler: (_request, response) => {
      response.writeHead(failing ? 503 : 200).end(failing ? 'upstream down' : 'ok');
    },
    yaml: (sinkUrl) => `
database:
  migrate: true
outbox:
  pollIntervalMs: 50
${RELAY_OFF}
destinations:
${httpSink(sinkUrl)}
    path: /events
routes:
  - topicPattern: "order.*"
    destination: sink
admin:
  enabled: true
  auth:
    type: bearer
    token: ${TOKEN}
`,
  });
  beforeAll(async () => {
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      // Without the networking flags Chromium's own connections are refused here.
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--disable-quic',
        '--no-first-run',
      ],
    });
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  });
  afterAll(async () => {
    await browser?.close();
  });

  /** The cells of each row the selector matches, as text (locators: no DOM types in Node). */
  const cells = async (selector: string) => {
    const rows = page.locator(selector);
    const out: string[][] = [];
    for (let i = 0; i < (await rows.count()); i += 1)
      out.push(await rows.nth(i).locator('td').allTextContents());
    return out;
  };
  const textOf = async (selector: string) => (await page.textContent(selector)) ?? '';

  it('shows dead rows, filters, opens one, replays it, and the sink receives it', async () => {
    await h.db.sql`
      INSERT INTO outbox (topic, payload, max_attempts)
      SELECT topic, jsonb_build_object('order', n), 1
      FROM generate_series(1, 3) AS n, (VALUES ('order.created'), ('order.paid')) AS t(topic)`;
    await eventually(async () => {
      const [row] = await h.db.sql<
        { n: number }[]
      >`SELECT count(*)::int AS n FROM outbox WHERE state = 'dead'`;
      return row!.n === 6;
    }, 60_000);
    failing = false;

    const response = await page.goto(`${h.service.base}/admin/console`);
    expect(response?.headers()['x-frame-options']).toBe('DENY');
    await page.fill('#credential', TOKEN);
    await page.click('#save-credential');
    // Counts by state, then the dead rows by topic and reason.
    await page.waitForSelector('#counts tbody tr[data-table="outbox"]');
    expect((await cells('#counts tbody tr'))[0]).toEqual(['outbox', '0', '0', '0', '6']);
    await page.waitForSelector('#dead-groups tbody tr');
    const groups = await cells('#dead-groups tbody tr');
    expect(groups.map((g) => [g[1], g[3]]).sort()).toEqual([
      ['order.created', '3'],
      ['order.paid', '3'],
    ]);
    expect(groups[0]![2]).toContain('503');

    // Filter: the dead rows of one topic.
    await page.selectOption('#filter-state', 'dead');
    await page.fill('#filter-group', 'order.paid');
    await page.click('#search');
    await eventually(async () => {
      const rows = await cells('#rows tbody tr');
      return rows.length === 3 && rows.every((row) => row[2] === 'order.paid');
    }, 30_000);

    // Open one: its detail is the stored row.
    const id = (await page.locator('#rows tbody tr').first().getAttribute('data-id')) ?? '';
    await page.click(`#rows tbody tr[data-id="${id}"] button`);
    await eventually(async () => (await textOf('#detail')).includes(`"id": "${id}"`), 30_000);
    const detail = JSON.parse((await page.textContent('#detail')) ?? '{}') as Record<
      string,
      unknown
    >;
    expect(detail).toMatchObject({ id, state: 'dead', topic: 'order.paid', attempt: 1 });
    if (SCREENSHOT !== undefined) await page.screenshot({ path: SCREENSHOT, fullPage: true });

    // Replay it: the real poller delivers it to the sink, and no other dead row moves.
    const forId = () => h.sink.requests.filter((r) => r.headers['x-message-id'] === id);
    const refused = forId().length;
    expect(refused).toBeGreaterThan(0);
    await page.click('#replay');
    await eventually(async () => (await textOf('#status')).includes('1 row(s) moved'), 30_000);
    const delivered = await eventually(() => forId()[refused], 90_000);
    // A replay starts the count again: the delivery is a first attempt.
    expect(delivered.headers['x-attempt']).toBe('0');
    expect(delivered.url).toBe('/events');
    expect(JSON.parse(delivered.body)).toEqual(detail.payload);
    await eventually(async () => {
      const [row] = await h.db.sql<{ state: string }[]>`SELECT state FROM outbox WHERE id = ${id}`;
      return row!.state === 'sent';
    }, 60_000);
    const [dead] = await h.db.sql<
      { n: number }[]
    >`SELECT count(*)::int AS n FROM outbox WHERE state = 'dead'`;
    expect(dead!.n).toBe(5);
  }, 180_000);
});
