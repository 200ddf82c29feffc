/**
 * The HTTP limit of a run (issue 18): the peers' undici client POSTing the same bodies to the
 * same sink with no database, `--peer-sockets` sockets and as many requests in flight
 * (peers/http-limit-runner.mjs). Measured like every worker: first to last receipt at the sink.
 */
import { startPeer } from '../lib/peer-process.mjs';
import { measureDelivery } from './delivery.mjs';
import { log } from '../lib/util.mjs';

export async function httpLimit(ctx, { id, title, rows }) {
  const { options } = ctx;
  log(`${id}: ${title}`);
  const result = await measureDelivery(ctx, null, {
    label: id,
    rows,
    role: 'peer worker',
    timeoutMs: options.timeout * 1000,
    start: () =>
      startPeer('http-limit-runner.mjs', `${ctx.stamp}-${id}`, {
        rows,
        keys: 0,
        bodyBytes: ctx.payloads.bytes,
        filler: ctx.payloads.filler,
        sinkUrl: `${ctx.sink.url}${ctx.sink.path}`,
        sockets: options['peer-sockets'],
      }),
    // Nothing is recorded after the receipt: the last response is the end.
    allDone: async () => true,
  });
  delete result.metricsText;
  return {
    id,
    system: 'HTTP limit',
    version: '',
    title,
    rows,
    keys: 0,
    payloadBytes: options['body-bytes'],
    settings: {
      client: `the peers' client (bench/src/lib/poster.mjs): undici Pool, ${options['peer-sockets']} keep-alive sockets, no pipelining, ${options['peer-sockets']} requests in flight`,
      database: 'none: the bodies are built in memory before the clock starts',
    },
    ...result,
  };
}
