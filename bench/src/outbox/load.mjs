/** Loading the backlog: multi-row INSERT … SELECT FROM unnest, `batch` rows per statement. */
import { keyOf } from '../lib/payload.mjs';
import { now, round } from '../lib/util.mjs';

// Arrays go over as JSON text (postgres.js does not send NULL inside a text[] parameter).
const json = (list) => JSON.stringify(list);

/** QueueBox's outbox: topic 'bench.event', key NULL or k<i % keys>, ~1 KiB JSON payload. */
export async function loadOutbox(sql, { rows, keys, batch, payloads, analyze = true }) {
  const t0 = now();
  for (let start = 0; start < rows; start += batch) {
    const n = Math.min(batch, rows - start);
    const keyList = [];
    const bodies = [];
    for (let i = start; i < start + n; i += 1) {
      const key = keyOf(i, keys);
      keyList.push(key);
      bodies.push(payloads.text(i, key));
    }
    await sql`insert into outbox (topic, key, payload)
      select 'bench.event', t.k, t.p::jsonb
      from rows from (jsonb_array_elements_text(${json(keyList)}::text::jsonb), jsonb_array_elements_text(${json(bodies)}::text::jsonb))
        with ordinality as t(k, p, n)
      order by t.n`;
  }
  const seconds = (now() - t0) / 1000;
  if (analyze) await sql`analyze outbox`;
  return {
    seconds: round(seconds, 2),
    rowsPerSecond: round(rows / seconds, 0),
    analyzed: analyze,
    statement: `INSERT INTO outbox (topic, key, payload) SELECT … FROM jsonb_array_elements_text(…) WITH ORDINALITY ORDER BY ordinality — ${batch} rows per statement, one transaction each; ${analyze ? 'then ANALYZE outbox' : 'NO ANALYZE (--no-analyze): the planner has no statistics until autovacuum analyzes'}`,
  };
}

/** graphile-worker: graphile_worker.add_jobs(job_spec[]) with `batch` jobs per call. */
export async function loadGraphile(
  sql,
  { rows, keys, batch, payloads, queuePerKey, analyze = true },
) {
  const t0 = now();
  for (let start = 0; start < rows; start += batch) {
    const n = Math.min(batch, rows - start);
    const bodies = [];
    const queues = [];
    for (let i = start; i < start + n; i += 1) {
      const key = keyOf(i, keys);
      bodies.push(payloads.text(i, key));
      queues.push(queuePerKey ? key : null);
    }
    await sql`select count(*) from graphile_worker.add_jobs(array(
      select row('post', t.p::json, t.q, null, null, null, null, null)::graphile_worker.job_spec
      from rows from (jsonb_array_elements_text(${json(bodies)}::text::jsonb), jsonb_array_elements_text(${json(queues)}::text::jsonb))
        with ordinality as t(p, q, n)
      order by t.n))`;
  }
  const seconds = (now() - t0) / 1000;
  if (analyze) await sql`analyze graphile_worker._private_jobs`;
  return {
    seconds: round(seconds, 2),
    rowsPerSecond: round(rows / seconds, 0),
    analyzed: analyze,
    statement: `SELECT graphile_worker.add_jobs(ARRAY[…]) — ${batch} jobs per call${queuePerKey ? ', queue_name = key' : ''}; ${analyze ? 'then ANALYZE' : 'no ANALYZE'}`,
  };
}
