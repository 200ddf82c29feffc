/**
 * `pnpm bench console`: the dead-letter console's list over a large dead backlog. 1,000,000 dead
 * outbox rows (`--rows`) over 10 topics, 100-byte payloads, loaded by SQL into a fresh database
 * that the built QueueBox migrated; then QueueBox at its defaults plus `admin.enabled` with a
 * bearer token, and, through its HTTP API: the first page of 50 filtered by state and topic
 * (20 requests after 10 warm-up rounds, the series interleaved; the target is a median under 100 ms), the page after it (by
 * cursor), the first page of all dead rows, a `q` text search within one topic, and `/admin/stats`.
 * Each request is timed from the bench process (HTTP included), one at a time.
 */
import { wanted } from '../lib/args.mjs';
import { loadAverage, machineConditions } from '../lib/machine.mjs';
import { connect, withDatabase } from '../lib/pg.mjs';
import { startQueueBox, migrate, writeConfig } from '../lib/queuebox.mjs';
import { fmtLoad, printConditions, section, table, writeResults } from '../lib/report.mjs';
import { freePort, log, now, percentile, round } from '../lib/util.mjs';

const TOKEN = 'bench-console-token';
const TOPICS = 10;
const REQUESTS = 20;
const WARMUPS = 10;

async function load(db, rows) {
  const sql = connect(db, { max: 1 });
  try {
    const chunk = 100_000;
    for (let start = 0; start < rows; start += chunk) {
      const end = Math.min(rows, start + chunk) - 1;
      // created_at one millisecond apart, topics round robin, a few distinct reasons.
      await sql.unsafe(
        `INSERT INTO outbox (topic, payload, state, attempt, max_attempts, last_error, created_at, updated_at)
         SELECT 'bench.topic.' || (n % ${TOPICS}), jsonb_build_object('n', n, 'pad', repeat('x', 70)),
                'dead', 5, 5,
                CASE n % 3 WHEN 0 THEN 'HTTP 503: Service Unavailable - upstream down'
                           WHEN 1 THEN 'HTTP 500: Internal Server Error (' || n || ')'
                           ELSE 'Connection refused: 127.0.0.1:9' END,
                '2026-01-01T00:00:00Z'::timestamptz + n * interval '1 millisecond', now()
         FROM generate_series(${start}, ${end}) AS n`,
      );
      log(`  loaded ${end + 1} dead rows`);
    }
    await sql.unsafe('VACUUM ANALYZE outbox');
  } finally {
    await sql.end({ timeout: 5 });
  }
}

async function timed(url) {
  const started = now();
  const response = await fetch(url, { headers: { Authorization: `Bearer ${TOKEN}` } });
  const body = await response.json();
  const ms = now() - started;
  if (response.status !== 200) throw new Error(`${url} answered ${response.status}: ${JSON.stringify(body)}`);
  return { ms, body };
}

/** Median, p95 and max of `REQUESTS` requests to each URL after `WARMUPS` untimed rounds. */
async function interleaved(urls) {
  for (let i = 0; i < WARMUPS; i += 1) for (const url of urls) await timed(url);
  const times = urls.map(() => []);
  const last = [];
  for (let i = 0; i < REQUESTS; i += 1) {
    for (const [k, url] of urls.entries()) {
      last[k] = await timed(url);
      times[k].push(last[k].ms);
    }
  }
  return times.map((list, k) => {
    const sorted = [...list].sort((a, b) => a - b);
    return {
      medianMs: round(percentile(sorted, 50), 1),
      p95Ms: round(percentile(sorted, 95), 1),
      maxMs: round(sorted.at(-1), 1),
      rows: last[k].body.rows?.length ?? null,
    };
  });
}

export async function runConsole(options) {
  const rows = options.rows === 100_000 ? 1_000_000 : options.rows;
  const conditions = { machine: await machineConditions(), loadBefore: loadAverage(), loadAfter: null };
  section('console benchmark: conditions');
  printConditions(conditions);
  console.log(
    `${rows} dead outbox rows over ${TOPICS} topics, ~100-byte payloads; QueueBox defaults plus admin.enabled (bearer); ${REQUESTS} timed requests per series after ${WARMUPS} warm-up rounds, series interleaved, one request at a time, HTTP included`,
  );
  const scenarios = [];
  await withDatabase('qb_bench_console', options['keep-db'], async (db) => {
    const httpPort = await freePort();
    const config = {
      server: { httpPort },
      // Nothing is pending, so nothing is sent; a route keeps the configuration complete.
      destinations: { nowhere: { type: 'http', baseUrl: 'http://127.0.0.1:9' } },
      routes: [{ topicPattern: '**', destination: 'nowhere' }],
      admin: { enabled: true, auth: { type: 'bearer', token: TOKEN } },
    };
    const configFile = writeConfig('console', config);
    migrate(db, configFile);
    const loadStarted = now();
    await load(db, rows);
    log(`  loaded and analysed in ${round((now() - loadStarted) / 1000, 1)} s`);
    const qb = await startQueueBox({ label: 'console', database: db, configFile, httpPort });
    try {
      const api = `${qb.base}/admin`;
      const plan = [
        ['co-first-page', 'state=dead&topic, first page of 50', `${api}/outbox?state=dead&topic=bench.topic.3&limit=50`],
        ['co-all-dead', 'state=dead, first page of 50', `${api}/outbox?state=dead&limit=50`],
        ['co-q', 'state=dead&topic&q=Connection, first page', `${api}/outbox?state=dead&topic=bench.topic.3&q=Connection&limit=50`],
      ];
      // The series run interleaved, one request of each in turn, so a warm-up effect or a burst
      // of the machine's other work falls on all of them alike.
      const chosen = plan.filter(([id]) => wanted(options, id));
      const first = chosen.find(([id]) => id === 'co-first-page');
      if (first) {
        const page = await timed(first[2]);
        if (page.body.nextCursor)
          chosen.push(['co-next-page', 'the page after it, by cursor', `${first[2]}&cursor=${page.body.nextCursor}`]);
      }
      const figures = await interleaved(chosen.map(([, , url]) => url));
      chosen.forEach(([id, what], i) => scenarios.push({ id, what, figures: figures[i] }));
      if (wanted(options, 'co-stats')) {
        const stats = await timed(`${api}/stats`);
        scenarios.push({
          id: 'co-stats',
          what: '/admin/stats once (counts by state, dead groups: scans every dead row)',
          figures: { medianMs: round(stats.ms, 1), rows: null },
        });
      }
    } finally {
      await qb.stop();
    }
  });
  conditions.loadAfter = loadAverage();
  section('console benchmark: results');
  console.log(
    table(
      ['id', 'what', 'median ms', 'p95 ms', 'max ms', 'rows'],
      scenarios.map((s) => [s.id, s.what, s.figures.medianMs, s.figures.p95Ms ?? '—', s.figures.maxMs ?? '—', s.figures.rows ?? '—']),
    ),
  );
  const first = scenarios.find((s) => s.id === 'co-first-page');
  const met = first ? first.figures.medianMs < 100 : null;
  console.log(
    `target: first page of 50 by state and topic, median < 100 ms over ${rows} dead rows: ${first ? `${first.figures.medianMs} ms, ${met ? 'met' : 'NOT met'}` : 'not run'}`,
  );
  console.log(`load average after: ${fmtLoad(conditions.loadAfter)}`);
  const result = {
    benchmark: 'console',
    rows,
    conditions,
    scenarios,
    targets: [{ target: 'first page median < 100 ms', value: first?.figures.medianMs ?? null, met }],
  };
  console.log(`results: ${writeResults('console', result)}`);
  return result;
}
