/**
 * `rep-limit-<n>-<size>`: the HTTP limit's plain client (peers/http-limit-runner.mjs, no
 * database) split over n processes, each with `--peer-sockets` sockets and as many requests in
 * flight, posting its share of the `<size>` bodies to the one sink, as n replicas do. Its n / 1
 * ratio is what this machine and the sink allow n processes before any outbox work: the bound
 * the replicas' ratio is read against, measured in the same run.
 */
import { startPeer } from '../lib/peer-process.mjs';
import { startTogether } from '../lib/process-group.mjs';
import { log } from '../lib/util.mjs';
import { measureDelivery } from './delivery.mjs';

export const LIMIT_PROCESS_COUNTS = [1, 4];
export const replicaLimitId = (n, size) => `rep-limit-${n}-${size}`;

const roleOf = (i) => `peer worker p${i + 1}`;

async function startRunners(ctx, id, rows, n) {
  const share = Math.ceil(rows / n);
  const { group } = await startTogether(
    Array.from({ length: n }, (_, i) =>
      startPeer('http-limit-runner.mjs', `${ctx.stamp}-${id}-p${i + 1}`, {
        rows: Math.max(0, Math.min(share, rows - i * share)),
        first: i * share,
        keys: 0,
        bodyBytes: ctx.payloads.bytes,
        filler: ctx.payloads.filler,
        sinkUrl: `${ctx.sink.url}${ctx.sink.path}`,
        sockets: ctx.options['peer-sockets'],
        reportEvery: 0,
      }),
    ),
    roleOf,
  );
  return group;
}

export async function replicaLimit(ctx, { id, title, processes, rows }) {
  const { options } = ctx;
  log(`${id}: ${title}`);
  const result = await measureDelivery(ctx, null, {
    label: id,
    rows,
    role: roleOf(0),
    timeoutMs: options.timeout * 1000,
    start: () => startRunners(ctx, id, rows, processes),
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
    processes,
    payloadBytes: options['body-bytes'],
    settings: {
      client: `the peers' client (bench/src/lib/poster.mjs) in ${processes} process${processes > 1 ? 'es' : ''}, each an undici Pool of ${options['peer-sockets']} keep-alive sockets, no pipelining, ${options['peer-sockets']} requests in flight`,
      database: 'none: the bodies are built in memory before the clock starts',
    },
    ...result,
  };
}
