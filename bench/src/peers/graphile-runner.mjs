/**
 * graphile-worker 0.17 as its own process: one task `post` that POSTs the job payload to the
 * sink. Options come as JSON in argv[2]; everything not given is graphile-worker's default.
 * IPC: sends {ready} once running; 'stop' stops it gracefully.
 */
import { run } from 'graphile-worker';
import { createPoster } from '../lib/poster.mjs';

const options = JSON.parse(process.argv[2]);
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
