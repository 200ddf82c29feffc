/**
 * graphile-worker as its own process, either version: `module` names the installed package
 * (`graphile-worker` is 0.17, `graphile-worker-0.18` the npm alias of 0.18). Options come as JSON in argv[2]; everything not given is graphile-worker's default.
 *
 * - phase `migrate`: runs the version's migrations, reports {done} and exits (the jobs are then
 *   loaded with `graphile_worker.add_jobs`, the same function in both versions).
 * - otherwise: one task `post` that POSTs the job payload to the sink. IPC: sends {ready} once
 *   running; 'stop' stops it gracefully.
 */
import { createPoster } from '../lib/poster.mjs';

const options = JSON.parse(process.argv[2]);
const { run, runMigrations } = await import(options.module ?? 'graphile-worker');

if (options.phase === 'migrate') {
  await runMigrations({ connectionString: options.connectionString });
  process.send({ done: {} }, () => process.exit(0));
} else {
  const post = createPoster(options.sinkUrl, options.sockets);
  const runner = await run({
    connectionString: options.connectionString,
    concurrency: options.concurrency,
    noHandleSignals: true,
    taskList: {
      post: async (payload, helpers) => {
        await post(payload, String(helpers.job.id), payload.key);
      },
    },
  });
  process.send({ ready: true });
  process.on('message', async (message) => {
    if (message === 'stop') {
      await runner.stop();
      await post.close();
      process.exit(0);
    }
  });
}
