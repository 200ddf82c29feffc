/**
 * pg-boss 10 as its own process: `workers` × boss.work('bench', {batchSize,
 * pollingIntervalSeconds}) whose handler POSTs every job of the fetched batch to the sink
 * concurrently (over the shared keep-alive pool) and returns when all answered; pg-boss then
 * completes the batch in one statement. Options come as JSON in argv[2].
 */
import PgBoss from 'pg-boss';
import { createPoster } from '../lib/poster.mjs';

const options = JSON.parse(process.argv[2]);
const post = createPoster(options.sinkUrl, options.sockets);
const boss = new PgBoss({ connectionString: options.connectionString });
boss.on('error', (error) => console.error('pg-boss error', error.message));
await boss.start();
for (let i = 0; i < options.workers; i += 1) {
  await boss.work(
    options.queue,
    { batchSize: options.batchSize, pollingIntervalSeconds: options.pollingIntervalSeconds },
    async (jobs) => {
      await Promise.all(jobs.map((job) => post(job.data, job.id, job.data.key)));
    },
  );
}
process.send({ ready: true });
process.on('message', async (message) => {
  if (message === 'stop') {
    await boss.stop({ graceful: true, wait: true, timeout: 10_000 });
    await post.close();
    process.exit(0);
  }
});
