/**
 * The soak's faults, beside the load, at fixed shares of the load's time: at 15 % replica a is
 * killed (SIGKILL) while it publishes and started again 2 s later; at 35 % replica b gets SIGTERM
 * and is started again; at 55 % the private PostgreSQL is stopped (fast shutdown) while rows are
 * in flight and started again 3 s later on the same data; at 75 % the broker connections are cut
 * (RST) while broker rows are in flight. The kill, the stop and the cut first wait (up to 5 s)
 * for that work in flight, so they strike a busy system rather than a gap of a light load.
 *
 * What the faults leave for the verdict (verdict.mjs), in the object returned: `kill` (the rows
 * processing at the kill and which of them the killed replica held, killed-claims.mjs), `term`
 * (the SIGTERM's exit), `brokerCut` (connections cut, broker rows in flight).
 */
import { startPrivatePostgres } from '@queuebox/testing';
import { pickMetrics } from '../lib/queuebox.mjs';
import { sleep } from '../lib/util.mjs';
import { attributeKilledClaims, readProcessing } from './killed-claims.mjs';
import { CLAIM_TIMEOUT_MS } from './services.mjs';

async function count(sql, text) {
  const [row] = await sql.unsafe(text);
  return row.n;
}

/**
 * Waits (up to 5 s) until at least `min` rows match `where` among the `processing` ones, so a
 * fault strikes while messages are in flight rather than between two batches of a light load.
 */
async function whenInFlight(sql, where, min) {
  const deadline = Date.now() + 5000;
  while (Date.now() < deadline) {
    const n = await count(
      sql,
      `SELECT count(*)::int AS n FROM outbox WHERE state = 'processing' AND ${where}`,
    ).catch(() => 0);
    if (n >= min) return n;
    await sleep(10);
  }
  return 0;
}

/**
 * Waits (up to 5 s) until the replica reports a publish in progress (its
 * `queuebox_outbox_queue_depth`), so the SIGKILL catches it holding messages.
 */
async function whenPublishing(replica) {
  const deadline = Date.now() + 5000;
  while (Date.now() < deadline) {
    try {
      const text = await (await fetch(`${replica.base}/metrics`)).text();
      const depth = Object.values(pickMetrics(text, ['queuebox_outbox_queue_depth'])).reduce(
        (sum, n) => sum + n,
        0,
      );
      if (depth > 0) return depth;
    } catch {
      // Not answering this moment: ask again.
    }
    await sleep(10);
  }
  return 0;
}

/**
 * Runs the schedule against the load that started at `loadStart` and resolves, with the faults'
 * figures, once the killed replica's rows are attributed (up to 2 × claimTimeoutMs + 10 s after
 * the kill).
 */
export async function runFaults({ options, loadStart, sql, database, broker, replicas, event }) {
  const at = async (share) => {
    const wait = loadStart + share * options.seconds * 1000 - Date.now();
    if (wait > 0) await sleep(wait);
  };
  const faults = {};

  await at(0.15);
  const [a, b] = replicas;
  await whenPublishing(a);
  await a.signal('SIGKILL');
  const atKill = await readProcessing(sql);
  event(
    `SIGKILL replica a: ${atKill.outbox.length} outbox rows and ${atKill.inboxProcessing} inbox rows processing`,
  );
  const attributing = attributeKilledClaims(sql, atKill.outbox, {
    timeoutMs: 2 * CLAIM_TIMEOUT_MS + 10_000,
  });
  await sleep(2000);
  await a.start();
  event('replica a started again');
  faults.kill = { processingAtKill: atKill.outbox.length, inboxProcessingAtKill: atKill.inboxProcessing };
  // Decided once the leases read at the kill ran out (up to claimTimeoutMs); the faults go on.
  const attributed = attributing.then((result) => {
    Object.assign(faults.kill, result);
    event(`the killed replica held ${result.killed.length} of the rows processing at the kill`);
  });

  await at(0.35);
  const termExit = await b.signal('SIGTERM');
  event(`SIGTERM replica b: exit ${JSON.stringify(termExit)}`);
  await b.start();
  event('replica b started again');
  faults.term = termExit;

  await at(0.55);
  await whenInFlight(sql, 'true', 10);
  await database.pg.stop();
  event('private PostgreSQL stopped (fast shutdown)');
  await sleep(3000);
  database.pg = await startPrivatePostgres(database.options);
  event(`private PostgreSQL started again (pid ${database.pg.pid})`);

  await at(0.75);
  const inFlight = await whenInFlight(sql, `topic LIKE 'stock.%'`, 1);
  const cutBefore = broker.stats().cut;
  broker.cut();
  faults.brokerCut = { connections: broker.stats().cut - cutBefore, rabbitRowsInFlight: inFlight };
  event(`broker connections cut (${faults.brokerCut.connections}; ${inFlight} broker rows in flight)`);

  await attributed;
  return faults;
}
