import { readFileSync } from 'node:fs';
import { silentLogger } from '@queuebox/core';
import {
  createFreshDatabase,
  freePort,
  requireService,
  type FreshDatabase,
} from '@queuebox/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type RunningService } from '../src/startup/service.js';

const pg = await requireService('postgres', 'app: metrics document');
const pgUrl = pg.available ? pg.url : '';

const DOC = new URL('../../../docs/metrics.md', import.meta.url);

/** `| \`name\` | type | ...` rows of the main table of docs/metrics.md. */
function documentedFamilies(): Map<string, string> {
  const families = new Map<string, string>();
  for (const line of readFileSync(DOC, 'utf8').split('\n')) {
    const match = /^\| `([a-z_]+)` \| (counter|gauge|summary) \|/.exec(line);
    if (match?.[1] && match[2]) families.set(match[1], match[2]);
  }
  return families;
}

describe.skipIf(!pg.available)('docs/metrics.md against a real scrape', () => {
  let db: FreshDatabase;
  let service: RunningService;
  beforeAll(async () => {
    db = await createFreshDatabase(pgUrl);
    const port = await freePort();
    service = await startService({
      logger: silentLogger,
      hostname: '127.0.0.1',
      env: {
        QUEUEBOX_DATABASE_URL: db.jdbcUrl,
        QUEUEBOX_DATABASE_USERNAME: db.user,
        QUEUEBOX_DATABASE_PASSWORD: 'unused',
        QUEUEBOX_SERVER_HTTPPORT: String(port),
        QUEUEBOX_DESTINATIONS_SINK_TYPE: 'http',
        QUEUEBOX_DESTINATIONS_SINK_BASEURL: 'http://127.0.0.1:9',
        // The circuit family exists only with a breaker configured.
        QUEUEBOX_DESTINATIONS_SINK_CIRCUITBREAKER_FAILURETHRESHOLD: '5',
        QUEUEBOX_ROUTES_0_TOPICPATTERN: '**',
        QUEUEBOX_ROUTES_0_DESTINATION: 'sink',
        QUEUEBOX_RETENTION_ENABLED: 'true',
        QUEUEBOX_RETENTION_OUTBOX_POLICY: 'AGE',
        QUEUEBOX_RETENTION_OUTBOX_MAXAGE: '7d',
      },
    });
  });
  afterAll(async () => {
    await service?.stop();
    await db?.drop();
  });

  it('documents exactly the families the service exposes, with their types', async () => {
    const text = await (await fetch(`http://127.0.0.1:${service.dataPort}/metrics`)).text();
    const scraped = new Map<string, string>();
    for (const match of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) scraped.set(match[1]!, match[2]!);
    const documented = documentedFamilies();
    expect(documented.size).toBeGreaterThan(20);
    expect(Object.fromEntries([...scraped].sort())).toEqual(
      Object.fromEntries([...documented].sort()),
    );
  });
});
