/**
 * `pnpm test:soak [--short]`: the soak and fault test (issue "Resilience proved", item 1).
 *
 * Three QueueBox replicas (the built app) share one private PostgreSQL (its own initdb cluster on
 * a free port, run as the `postgres` user by startPrivatePostgres, so the machine's shared server
 * is never touched). Outbox rows (full: 50,000 over 500 keys; --short: 5,000) go to an HTTP sink
 * (every 5th key: to a RabbitMQ exchange, reached through a fault proxy), and webhooks (full:
 * 5,000 over 200 aggregates; --short: 1,000) are posted to the replicas' HTTP source, relayed
 * and delivered to the sink. The sink refuses the first attempt of 5 % of the messages and
 * answers 0.5 % of the requests after 1-3 s. While the load runs: one replica is killed with
 * SIGKILL and started again, another gets SIGTERM and is started again, the PostgreSQL server is
 * restarted (fast shutdown, same data), and the broker connections are cut (RST) once.
 *
 * Where each part lives: services.mjs (the private PostgreSQL, the broker behind its fault proxy,
 * the sink, the replicas' configuration), replicas.mjs (the replica processes and their peak
 * RSS), load.mjs (the rows and webhooks), receivers.mjs (the sink and the RabbitMQ receiver),
 * faults.mjs (the fault schedule), drain.mjs (the wait for every delivery), and what is checked:
 * order-ledger.mjs (deliveries, duplicates and order at each receiver), killed-claims.mjs (which
 * rows the killed replica held) and verdict.mjs (the duplicate bound, everything asserted and
 * printed). The exit code is 1 when any check fails.
 *
 * `pnpm test:soak --circuit [--minutes 10]` runs the circuit breaker's outage instead (circuit.mjs).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadAverage } from '../lib/machine.mjs';
import { log, round, runCleanups, sleep } from '../lib/util.mjs';
import { expectedDeliveries, waitForDrain } from './drain.mjs';
import { runFaults } from './faults.mjs';
import { insertOutbox, postWebhooks } from './load.mjs';
import { startServices } from './services.mjs';
import { judge } from './verdict.mjs';

function parseArgs(argv) {
  const short = argv.includes('--short');
  const value = (name, fallback) => {
    const i = argv.indexOf(`--${name}`);
    return i >= 0 ? Number(argv[i + 1]) : fallback;
  };
  return {
    short,
    rows: value('rows', short ? 5000 : 50_000),
    keys: value('keys', 500),
    webhooks: value('webhooks', short ? 1000 : 5000),
    aggregates: value('aggregates', 200),
    seconds: value('seconds', short ? 60 : 150),
    timeout: value('timeout', short ? 150 : 600),
    keep: argv.includes('--keep'),
  };
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  const t0 = Date.now();
  const loadBefore = loadAverage();
  const cleanups = [];
  const events = [];
  const event = (what) => {
    events.push({ at: round((Date.now() - t0) / 1000, 1), what });
    log(what);
  };
  const workDir = mkdtempSync(join(tmpdir(), 'queuebox-soak-'));
  log(
    `soak${options.short ? ' (short)' : ''}: ${options.rows} outbox rows over ${options.keys} keys, ` +
      `${options.webhooks} webhooks over ${options.aggregates} aggregates, load spread over ${options.seconds} s; logs in ${workDir}`,
  );
  try {
    const services = await startServices({ workDir, cleanups, event });
    const { sql, replicas } = services;

    // The load and, beside it, the faults at fixed shares of the load's time.
    const loadStart = Date.now();
    let stopLoad = false;
    let insertErrors = 0;
    const inserting = insertOutbox(sql, {
      rows: options.rows,
      keys: options.keys,
      seconds: options.seconds,
      stopped: () => stopLoad,
      onError: () => (insertErrors += 1),
    });
    const posting = postWebhooks({
      bases: replicas.map((r) => r.base),
      path: '/inbox/webhooks',
      total: options.webhooks,
      aggregates: options.aggregates,
      seconds: options.seconds,
    });
    const faults = await runFaults({ ...services, options, loadStart, event });
    const inserted = await inserting;
    const webhookStats = await posting;
    const loadSeconds = (Date.now() - loadStart) / 1000;
    event(
      `load done: ${inserted.inserted} rows inserted (${inserted.retries} batch retries), ` +
        `${webhookStats.posted} webhooks posted (${webhookStats.retried} retried requests)`,
    );

    // Drained: every expected row sent, the inbox forwarded, the receivers complete.
    const expected = expectedDeliveries(options);
    const drained = await waitForDrain({ ...services, expected, options, event });
    const drainedSeconds = (Date.now() - loadStart) / 1000;
    event(`drained ${round(drainedSeconds - loadSeconds, 1)} s after the load ended`);
    // A moment for late duplicates (a reclaim, a resent publish) to show up before counting.
    await sleep(3000);

    for (const r of replicas) if (r.current) r.sample(r.current);
    const exits = [];
    for (const r of replicas) exits.push({ replica: r.name, exit: await r.signal('SIGTERM') });

    const checks = await judge({
      ...services,
      options,
      expected,
      faults,
      exits,
      webhookStats,
      inserted,
      events,
      drained,
      t0,
      loadSeconds,
      drainedSeconds,
      loadBefore,
    });
    const failed = checks.filter(([, ok]) => !ok);
    if (failed.length > 0) {
      console.log(`SOAK FAILED: ${failed.length} of ${checks.length} checks; logs in ${workDir}`);
      options.keep = true;
      process.exitCode = 1;
    } else {
      console.log(`SOAK PASSED: ${checks.length} checks`);
    }
  } finally {
    await runCleanups(cleanups);
    if (!options.keep) rmSync(workDir, { recursive: true, force: true });
  }
}

if (process.argv.includes('--circuit')) {
  const { runCircuitSoak } = await import('./circuit.mjs');
  await runCircuitSoak(process.argv.slice(2));
} else {
  await main();
}
