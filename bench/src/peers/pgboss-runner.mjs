/**
 * pg-boss as its own process, either version: `module` names the installed package (`pg-boss`
 * is 10, `pg-boss-12` the npm alias of 12). Options come as JSON in
 * argv[2].
 *
 * - phase `load`: creates the queue and inserts `rows` jobs through the version's own
 *   `boss.insert` (`batch` a call), each job's data the run's payload object, then reports
 *   {done} and exits. Loading through the peer's API keeps its schema and defaults its own.
 * - phase `work`: `workers` × boss.work('bench', {batchSize, pollingIntervalSeconds, …}) whose
 *   handler POSTs every job of the fetched batch to the sink concurrently (over the shared
 *   keep-alive pool) and returns when all answered; pg-boss then completes the batch in one
 *   statement. IPC: sends {ready} once the workers are registered; 'stop' stops it gracefully.
 */
import { createPoster } from '../lib/poster.mjs';
import { keyOf, makePayloads } from '../lib/payload.mjs';

const options = JSON.parse(process.argv[2]);
const loaded = await import(options.module);
// pg-boss 10 is CommonJS (the class is the default export); 12 exports { PgBoss }.
const PgBoss = loaded.PgBoss ?? loaded.default;
const major = options.major;

if (options.phase === 'load') {
  const boss = new PgBoss({
    connectionString: options.connectionString,
    supervise: false,
    schedule: false,
  });
  boss.on('error', (error) => console.error('pg-boss (loader) error', error.message));
  await boss.start();
  await boss.createQueue(options.queue);
  const payloads = makePayloads(options.bodyBytes, options.filler);
  const t0 = performance.now();
  for (let start = 0; start < options.rows; start += options.batch) {
    const jobs = [];
    for (let i = start; i < Math.min(options.rows, start + options.batch); i += 1) {
      const data = payloads.object(i, keyOf(i, options.keys));
      jobs.push(major >= 11 ? { data } : { name: options.queue, data });
    }
    // 10: insert(jobs with name); 11+: insert(name, jobs).
    if (major >= 11) await boss.insert(options.queue, jobs);
    else await boss.insert(jobs);
  }
  const seconds = (performance.now() - t0) / 1000;
  await boss.stop({ graceful: false, wait: true });
  process.send({ done: { seconds } }, () => process.exit(0));
} else {
  const post = createPoster(options.sinkUrl, options.sockets);
  const boss = new PgBoss({ connectionString: options.connectionString });
  boss.on('error', (error) => console.error('pg-boss error', error.message));
  await boss.start();
  const workOptions = {
    batchSize: options.batchSize,
    pollingIntervalSeconds: options.pollingIntervalSeconds,
    ...(options.burstWhenBatchFull ? { burstWhenBatchFull: true } : {}),
  };
  for (let i = 0; i < options.workers; i += 1) {
    await boss.work(options.queue, workOptions, async (jobs) => {
      await Promise.all(jobs.map((job) => post(job.data, job.id, job.data.key)));
    });
  }
  process.send({ ready: true });
  process.on('message', async (message) => {
    if (message === 'stop') {
      await boss.stop({ graceful: true, wait: true, timeout: 10_000 });
      await post.close();
      process.exit(0);
    }
  });
}
