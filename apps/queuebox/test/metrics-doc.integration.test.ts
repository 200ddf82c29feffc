import { readFileSync } from 'node:fs';
import { requireService } from '@queuebox/testing';
import { describe, expect, it } from 'vitest';
import { serviceOnDatabase } from './sink-service.js';

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
  const h = serviceOnDatabase(
    pgUrl,
    `
destinations:
  sink:
    type: http
    baseUrl: http://127.0.0.1:9
    # The circuit family exists only with a breaker configured.
    circuitBreaker:
      failureThreshold: 5
routes:
  - topicPattern: "**"
    destination: sink
retention:
  enabled: true
  outbox:
    policy: AGE
    maxAge: 7d
`,
  );

  it('documents exactly the families the service exposes, with their types', async () => {
    const text = await (await fetch(`${h.service.base}/metrics`)).text();
    const scraped = new Map<string, string>();
    for (const match of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) scraped.set(match[1]!, match[2]!);
    const documented = documentedFamilies();
    expect(documented.size).toBeGreaterThan(20);
    expect(Object.fromEntries([...scraped].sort())).toEqual(
      Object.fromEntries([...documented].sort()),
    );
  });
});
