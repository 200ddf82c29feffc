/**
 * The HTTP limit of a run (issue 18): the peers' undici client POSTing the same bodies to the
 * same sink with no database, `--peer-sockets` sockets and as many requests in flight
 * (peers/http-limit-runner.mjs). Measured like every worker: first to last receipt at the sink.
 * With `outboxWork` (limit-db-<size>) the same client runs while a process of its own does an
 * outbox's database work beside it (lib/outbox-ceiling.mjs: QueueBox's claim and completion of
 * 400 loaded rows per 400 responses): the ceiling of any outbox that must write those rows.
 */
import {
  OUTBOX_WORK_BATCH,
  outboxWorkSetting,
  recordOutboxWork,
  withOutboxWork,
} from '../lib/outbox-ceiling.mjs';
import { startPeer } from '../lib/peer-process.mjs';
import { measurePeerDelivery } from './delivery.mjs';
import { log } from '../lib/util.mjs';

export async function httpLimit(ctx, { id, title, rows, outboxWork = false }) {
  const { options } = ctx;
  log(`${id}: ${title}`);
  const measure = (database, onResponses) =>
    measurePeerDelivery(ctx, database, {
      id,
      rows,
      start: () =>
        startPeer(
          'http-limit-runner.mjs',
          `${ctx.stamp}-${id}`,
          {
            rows,
            keys: 0,
            bodyBytes: ctx.payloads.bytes,
            filler: ctx.payloads.filler,
            sinkUrl: `${ctx.sink.url}${ctx.sink.path}`,
            sockets: options['peer-sockets'],
            reportEvery: onResponses ? OUTBOX_WORK_BATCH : 0,
          },
          {},
          { onMessage: onResponses && ((m) => onResponses(m.responses)) },
        ),
      // Nothing is recorded after the receipt: the last response is the end.
      allDone: async () => true,
    });
  let result;
  if (outboxWork) {
    // The database is passed on, so its backends' CPU, statements, commits and WAL are reported.
    let work;
    ({ result, work } = await withOutboxWork(
      ctx,
      (onResponses, { database }) => measure(database, onResponses),
      { rows },
    ));
    recordOutboxWork(result.figures, work, {
      rows,
      seconds: result.figures.firstToLastReceiptSeconds,
    });
  } else {
    result = await measure(null, null);
  }
  delete result.metricsText;
  const client = `the peers' client (bench/src/lib/poster.mjs): undici Pool, ${options['peer-sockets']} keep-alive sockets, no pipelining, ${options['peer-sockets']} requests in flight`;
  return {
    id,
    system: 'HTTP limit',
    version: '',
    title,
    rows,
    keys: 0,
    payloadBytes: options['body-bytes'],
    settings: outboxWork
      ? {
          client,
          database: `${rows} rows loaded first, none read by the client: the bodies are built in memory before the clock starts`,
          outboxWork: outboxWorkSetting('responses'),
        }
      : { client, database: 'none: the bodies are built in memory before the clock starts' },
    ...result,
  };
}
