import { requireService } from '@queuebox/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { eventually } from './service.js';
import { sinkService } from './sink-service.js';
import { HOOKS_SOURCE, sinkRoute } from './yaml-pieces.js';

const pg = await requireService('postgres', 'app: in-process wakes');
const pgUrl = pg.available ? pg.url : '';

/**
 * Issue 14 item 3: a stored webhook wakes the relay and a forward wakes the poller, so a webhook
 * reaches its destination without waiting for either poll interval. Both intervals are 20 s
 * here; the first cycles (at start) are long done when the webhook arrives.
 */
describe.skipIf(!pg.available)('a webhook goes through the relay and the poller at once', () => {
  const h = sinkService(
    pgUrl,
    (sinkUrl) => `
inbox:
  relay:
    pollIntervalMs: 60000
outbox:
  pollIntervalMs: 60000
${sinkRoute(sinkUrl)}${HOOKS_SOURCE}`,
  );
  // Let the first cycles of the relay and the poller (at start) finish and go to sleep.
  beforeAll(() => new Promise((resolve) => setTimeout(resolve, 500)));

  it('delivers each webhook in well under one poll interval', async () => {
    for (const id of ['w1', 'w2', 'w3']) {
      const posted = performance.now();
      const res = await fetch(`${h.service.base}/inbox/hooks`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ id, type: 'order.created' }),
      });
      expect(res.status).toBe(202);
      // A lost wake would wait for the next poll, a minute away; a loaded machine takes seconds.
      await eventually(() => h.sink.requests.some((r) => r.body.includes(`"${id}"`)), 20_000);
      expect(performance.now() - posted).toBeLessThan(15_000);
    }
    expect(h.sink.requests).toHaveLength(3);
  }, 90_000);
});
