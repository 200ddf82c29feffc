/**
 * The bare start: what any outbox worker must do before its first delivery, and nothing else.
 * Connects to PostgreSQL (postgres.js), reads the newest outbox row and POSTs its payload with
 * undici (one keep-alive Pool, as the peers' client), then exits. The bench times it from spawn
 * to the sink's first receipt, against QueueBox's start (outbox/start.mjs). Options come as JSON
 * in argv[2].
 */
import postgres from 'postgres';
import { Pool } from 'undici';

const options = JSON.parse(process.argv[2]);
const sql = postgres(options.connection, { max: 1, onnotice: () => undefined });
const target = new URL(options.sinkUrl);
const pool = new Pool(target.origin, { connections: 1, pipelining: 1 });
try {
  // The newest row: QueueBox's round before this one has sent it already, which changes nothing
  // for a read.
  const [row] = await sql`select id::text as id, payload::text as payload from outbox
    order by sequence desc limit 1`;
  if (row === undefined) throw new Error('no row');
  const response = await pool.request({
    path: target.pathname,
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-message-id': row.id },
    body: row.payload,
  });
  await response.body.dump();
  if (response.statusCode < 200 || response.statusCode > 299)
    throw new Error(`sink answered ${response.statusCode}`);
} finally {
  await Promise.all([sql.end(), pool.close()]);
}
