/**
 * The HTTP limit: the peers' undici client (lib/poster.mjs: one keep-alive Pool, `sockets`
 * connections, no pipelining) POSTing the run's bodies to the sink with no database at all,
 * `sockets` requests in flight — what the sink, the client and this machine can carry, the
 * ceiling every worker of the run is measured against. The bodies are built before {ready}, so
 * only the HTTP exchanges are timed. Options come as JSON in argv[2]; 'stop' ends it. With
 * `reportEvery` it sends `{ responses }`, the count of settled requests, at every multiple of it
 * and at the last (limit-db-<size>: the bench hands an outbox's database work one batch per
 * OUTBOX_WORK_BATCH responses).
 * With `first` it posts the bodies first … first + rows − 1, so several runners split one set.
 */
import { keyOf, makePayloads } from '../lib/payload.mjs';
import { createPoster } from '../lib/poster.mjs';

const options = JSON.parse(process.argv[2]);
const payloads = makePayloads(options.bodyBytes, options.filler);
const first = options.first ?? 0;
const bodies = [];
for (let i = first; i < first + options.rows; i += 1)
  bodies.push(payloads.object(i, keyOf(i, options.keys)));
const post = createPoster(options.sinkUrl, options.sockets);

let next = 0;
let failed = 0;
let responses = 0;
async function lane() {
  while (next < bodies.length) {
    const i = next++;
    try {
      await post(bodies[i], `limit-${first + i}`, bodies[i].key);
    } catch (error) {
      failed += 1;
      if (failed <= 5) console.error(`POST ${i} failed: ${error.message}`);
    }
    responses += 1;
    const last = responses === bodies.length;
    if (options.reportEvery && (responses % options.reportEvery === 0 || last))
      process.send({ responses });
  }
}

process.send({ ready: true });
const lanes = Array.from({ length: options.sockets }, lane);
Promise.all(lanes).then(() => console.log(`posted ${bodies.length}, failed ${failed}`));
process.on('message', async (message) => {
  if (message === 'stop') {
    await post.close();
    process.exit(0);
  }
});
