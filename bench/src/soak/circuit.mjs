/**
 * `pnpm test:soak --circuit [--minutes 10] [--baseline 60] [--keep]`: an outage of one destination
 * behind its circuit breaker, for `--minutes` (10 by default).
 *
 * One QueueBox (the built app) on a fresh database of the local PostgreSQL delivers to two HTTP
 * receivers: `partner` (behind the TCP fault proxy, with `circuitBreaker`) gets a steady 20 rows
 * a second; `other` (no breaker, answering after 20 ms so its rate is bound by the publishes in
 * flight, not by this machine's CPU) is kept backlogged, so its rate is what QueueBox can do.
 * First `--baseline` seconds without an outage; then the partner is down for `--minutes`: the
 * first half it answers 503, the second half the proxy refuses and cuts its connections. Then it
 * comes back and every row must be delivered.
 *
 * Checked: once the circuit is open the partner's rows spend no attempt (the sum of `attempt`
 * over them is the same at the end of the outage and after the recovery as when it opened), none
 * goes dead, all are delivered after the recovery, and `other` keeps at least 0.9 of its
 * baseline rate during the outage. The exit code is 1 when a check fails.
 */
import { startFaultProxy, startHttpSink } from '@queuebox/testing';
import { loadAverage } from '../lib/machine.mjs';
import { connect, createDatabase, dropDatabase } from '../lib/pg.mjs';
import { migrate, startQueueBox, writeConfig } from '../lib/queuebox.mjs';
import { freePort, log, round, runCleanups, sleep, waitFor } from '../lib/util.mjs';

const PARTNER_PER_SECOND = 20;
const OTHER_BACKLOG = 2000;
const OTHER_DELAY_MS = 20;

function parseArgs(argv) {
  const value = (name, fallback) => {
    const i = argv.indexOf(`--${name}`);
    return i >= 0 ? Number(argv[i + 1]) : fallback;
  };
  return {
    minutes: value('minutes', 10),
    baseline: value('baseline', 60),
    keep: argv.includes('--keep'),
  };
}

export async function runCircuitSoak(argv) {
  const options = parseArgs(argv);
  const loadBefore = loadAverage();
  const cleanups = [];
  const checks = [];
  const check = (name, ok, detail) => {
    checks.push([name, ok]);
    log(`${ok ? 'ok  ' : 'FAIL'} ${name}: ${detail}`);
  };
  log(`circuit soak: ${options.baseline} s baseline, ${options.minutes} min outage of 'partner'`);
  try {
    let failing = false;
    const partner = await startHttpSink((_request, response) => {
      response.writeHead(failing ? 503 : 200).end(failing ? 'down' : 'ok');
    });
    cleanups.push(() => partner.close());
    const other = await startHttpSink((_request, response) => {
      setTimeout(() => response.writeHead(200).end('ok'), OTHER_DELAY_MS);
    });
    cleanups.push(() => other.close());
    const proxy = await startFaultProxy({ target: { host: '127.0.0.1', port: partner.port } });
    cleanups.push(() => proxy.close());

    const database = await createDatabase('qb_soak_circuit');
    cleanups.push(() => (options.keep ? undefined : dropDatabase(database)));
    const httpPort = await freePort();
    const configFile = writeConfig('soak-circuit', {
      server: { httpPort },
      http: { blockPrivateAddresses: false },
      destinations: {
        partner: {
          type: 'http',
          baseUrl: `http://127.0.0.1:${proxy.port}`,
          timeoutMs: 2000,
          circuitBreaker: { failureThreshold: 5, openMs: 5000 },
        },
        other: { type: 'http', baseUrl: other.url },
      },
      routes: [
        { topicPattern: 'partner.**', destination: 'partner' },
        { topicPattern: '**', destination: 'other' },
      ],
    });
    migrate(database, configFile);
    const app = await startQueueBox({ label: 'soak-circuit', database, configFile, httpPort });
    cleanups.push(() => app.stop());
    const sql = connect(database);
    cleanups.push(() => sql.end({ timeout: 5 }));

    const feeding = feed(sql);
    cleanups.push(() => feeding.stop());

    const otherSent = async () =>
      (await sql`SELECT count(*)::int AS n FROM outbox WHERE state = 'sent' AND topic LIKE 'other.%'`)[0].n;
    const partnerRows = async () =>
      (
        await sql`SELECT coalesce(sum(attempt), 0)::int AS attempts,
          count(*) FILTER (WHERE state = 'dead')::int AS dead,
          count(*) FILTER (WHERE state = 'processing')::int AS processing,
          count(*) FILTER (WHERE state = 'sent')::int AS sent, count(*)::int AS total
        FROM outbox WHERE topic LIKE 'partner.%'`
      )[0];
    const circuit = async () => /queuebox_destination_circuit_state\{destination="partner"\} (\d)/.exec(await app.metrics())?.[1];
    const rateOver = async (seconds) => {
      const from = await otherSent();
      const t = performance.now();
      await sleep(seconds * 1000);
      return ((await otherSent()) - from) / ((performance.now() - t) / 1000);
    };

    // Warm up, then the baseline rate of `other` with the partner healthy.
    await sleep(5000);
    const baseline = await rateOver(options.baseline);
    log(`baseline: other ${round(baseline)} msg/s`);

    failing = true;
    const outageStart = performance.now();
    await waitFor(async () => (await circuit()) === '1', { timeoutMs: 60_000, what: 'the circuit to open' });
    await waitFor(async () => (await partnerRows()).processing === 0, { timeoutMs: 60_000, what: 'no partner row in flight' });
    const opened = await partnerRows();
    log(`circuit open after ${round((performance.now() - outageStart) / 1000)} s; partner attempts ${opened.attempts}`);

    const outageMs = options.minutes * 60_000;
    const half = Math.max(1000, outageMs / 2 - (performance.now() - outageStart));
    const firstHalf = await rateOver(half / 1000);
    // Second half: the receiver is unreachable instead of answering 503.
    proxy.refuse();
    proxy.cut();
    const secondHalf = await rateOver(Math.max(1, (outageMs - (performance.now() - outageStart)) / 1000));
    const during = await partnerRows();
    const outageRate = Math.min(firstHalf, secondHalf);
    log(`outage: other ${round(firstHalf)} msg/s (503), ${round(secondHalf)} msg/s (refused)`);

    failing = false;
    proxy.restore();
    feeding.stop();
    const recovered = await waitFor(
      async () => {
        const rows = await partnerRows();
        return rows.sent === rows.total ? rows : null;
      },
      { timeoutMs: 300_000, everyMs: 1000, what: 'every partner row sent' },
    ).catch(() => null);
    const after = await partnerRows();

    check('no attempt during the outage', during.attempts === opened.attempts, `${opened.attempts} when open, ${during.attempts} at its end`);
    check('no attempt at the recovery', after.attempts === opened.attempts, `${after.attempts} after`);
    check('no partner row dead', during.dead === 0 && after.dead === 0, `${after.dead} dead`);
    check('every partner row delivered', recovered !== null, `${after.sent} of ${after.total} sent`);
    check('other keeps ≥ 0.9 of its rate', outageRate >= 0.9 * baseline, `ratio ${round(outageRate / baseline, 3)}`);
    check('circuit closed again', (await circuit()) === '0', `state ${await circuit()}`);
    const load = (l) => `${l.one} ${l.five} ${l.fifteen}`;
    log(`load average: ${load(loadBefore)} before, ${load(loadAverage())} after`);
  } finally {
    await runCleanups(cleanups);
  }
  const failed = checks.filter(([, ok]) => !ok);
  console.log(failed.length > 0 ? `CIRCUIT SOAK FAILED: ${failed.length} of ${checks.length} checks` : `CIRCUIT SOAK PASSED: ${checks.length} checks`);
  if (failed.length > 0) process.exitCode = 1;
}

/** The partner's steady rows and the `other` backlog, every 200 ms until stopped. */
function feed(sql) {
  let stopped = false;
  let partnerNext = 0;
  let otherNext = 0;
  const started = performance.now();
  const done = (async () => {
    while (!stopped) {
      const due = Math.floor(((performance.now() - started) / 1000) * PARTNER_PER_SECOND);
      const rows = [];
      for (; partnerNext < due; partnerNext++) rows.push({ topic: `partner.${partnerNext}`, payload: { n: partnerNext } });
      const [{ n: waiting }] =
        await sql`SELECT count(*)::int AS n FROM outbox WHERE state = 'pending' AND topic LIKE 'other.%'`;
      if (waiting < OTHER_BACKLOG) {
        for (let i = 0; i < OTHER_BACKLOG; i++, otherNext++) rows.push({ topic: `other.${otherNext}`, payload: { n: otherNext } });
      }
      if (rows.length > 0) await sql`INSERT INTO outbox ${sql(rows.map((r) => ({ topic: r.topic, payload: sql.json(r.payload) })))}`;
      await sleep(200);
    }
  })();
  return {
    async stop() {
      stopped = true;
      await done;
    },
  };
}
