/**
 * The soak's load, spread over `seconds`: outbox rows inserted by an application (batches in
 * their own transactions, retried across the database restart with the same ids, so a commit
 * whose answer was lost cannot insert a row twice), and webhooks posted to the replicas the way
 * real clients post them. Both carry a per-key sequence number (`seq`, from 1) in the payload.
 */
import { randomUUID } from 'node:crypto';
import { request } from 'node:http';
import { sleep } from '../lib/util.mjs';

/** Every 5th key goes to RabbitMQ (topic `stock.changed`), the rest to the HTTP sink. */
export const rabbitKey = (k) => k % 5 === 0;

export function outboxRow(i, keys) {
  const k = i % keys;
  const seq = Math.floor(i / keys) + 1;
  const key = `key-${k}`;
  return {
    id: randomUUID(),
    topic: rabbitKey(k) ? 'stock.changed' : 'order.created',
    key,
    payload: { key, seq, i, note: 'soak' },
  };
}

export async function insertOutbox(sql, { rows, keys, seconds, batch = 100, stopped, onError }) {
  const batches = Math.ceil(rows / batch);
  const started = Date.now();
  let inserted = 0;
  let retries = 0;
  for (let b = 0; b < batches && !stopped(); b += 1) {
    const items = [];
    for (let i = b * batch; i < Math.min(rows, (b + 1) * batch); i += 1)
      items.push(outboxRow(i, keys));
    for (;;) {
      try {
        await sql`INSERT INTO outbox (id, topic, key, payload)
          SELECT (e->>'id')::uuid, e->>'topic', e->>'key', e->'payload'
          FROM jsonb_array_elements(${JSON.stringify(items)}::text::jsonb) WITH ORDINALITY AS t(e, n)
          ORDER BY t.n
          ON CONFLICT (id) DO NOTHING`;
        break;
      } catch (error) {
        if (stopped()) return { inserted, retries };
        retries += 1;
        onError?.(error);
        await sleep(250);
      }
    }
    inserted += items.length;
    const due = started + ((b + 1) / batches) * seconds * 1000;
    const wait = due - Date.now();
    if (wait > 0) await sleep(wait);
  }
  return { inserted, retries };
}

/**
 * How clients differ: some stream the body chunked (no Content-Length), some send charset
 * parameters, upper case, no Content-Type at all or a wrong one, repeated headers, a 4 KB
 * header, obs-text (Latin-1) values, odd but legal header names, and Expect: 100-continue.
 */
const STYLES = [
  { chunked: false, headers: { 'Content-Type': 'application/json' } },
  { chunked: true, headers: { 'Content-Type': 'application/json; charset=utf-8' } },
  { chunked: false, headers: { 'content-type': 'APPLICATION/JSON', 'X-Tag': ['a', 'b', 'a'] } },
  { chunked: true, headers: {} },
  { chunked: false, headers: { 'Content-Type': 'text/plain', 'X-Trace-Blob': 'z'.repeat(4096) } },
  {
    chunked: false,
    headers: {
      'Content-Type': 'application/json',
      'X-Weird_Name.v2~': 'spaces  and\ttab',
      'X-Origin-City': 'K\u00f8benhavn caf\u00e9',
      'User-Agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)',
    },
  },
  {
    chunked: true,
    headers: { 'Content-Type': 'application/json', Expect: '100-continue', 'X-Empty': '' },
  },
];

function postOnce(base, path, body, style) {
  return new Promise((resolve, reject) => {
    const headers = { ...style.headers };
    if (!style.chunked) headers['Content-Length'] = String(Buffer.byteLength(body));
    const req = request(`${base}${path}`, { method: 'POST', headers, timeout: 30_000 }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode, body: Buffer.concat(chunks).toString('utf8') }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.on('timeout', () => req.destroy(new Error('timeout')));
    const send = () => {
      if (!style.chunked) {
        req.end(body);
        return;
      }
      // Three pieces, the last after a short pause, as a streaming client sends them.
      const third = Math.ceil(body.length / 3);
      req.write(body.slice(0, third));
      req.write(body.slice(third, 2 * third));
      setTimeout(() => req.end(body.slice(2 * third)), 5);
    };
    if (headers.Expect === '100-continue') req.once('continue', send);
    else send();
  });
}

/**
 * Posts `total` webhooks over `aggregates` aggregates within `seconds`: each aggregate's webhooks
 * one after the other (the next only once the previous one was stored, so the inbox order of an
 * aggregate is its seq order), at most `concurrency` requests in flight, spread over the
 * replicas. A refused connection, a reset, a timeout or a 5xx goes to the next replica, with
 * the same body and so the same idempotency key, as a client behind a load balancer retries.
 */
export async function postWebhooks({ bases, path, total, aggregates, seconds, concurrency = 8 }) {
  const perAggregate = Math.ceil(total / aggregates);
  const stats = { posted: 0, stored: 0, duplicate: 0, retried: 0, styles: {}, failures: [] };
  let slots = concurrency;
  const waiting = [];
  const acquire = async () => {
    if (slots > 0) {
      slots -= 1;
      return;
    }
    await new Promise((resolve) => waiting.push(resolve));
  };
  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else slots += 1;
  };
  let turn = 0;
  const started = Date.now();
  const chain = async (a) => {
    for (let seq = 1; seq <= perAggregate; seq += 1) {
      const n = (seq - 1) * aggregates + a;
      if (n >= total) return;
      // Paced: webhook n is due at n/total of the time, interleaving the aggregates.
      const wait = started + (n / total) * seconds * 1000 - Date.now();
      if (wait > 0) await sleep(wait);
      const aggregate = `agg-${a}`;
      const body = JSON.stringify({
        id: `wh-${a}-${seq}`,
        type: 'hook.received',
        aggregate,
        seq,
        data: { amount: (n * 37) % 1000, currency: 'EUR' },
      });
      const style = STYLES[n % STYLES.length];
      stats.styles[n % STYLES.length] = (stats.styles[n % STYLES.length] ?? 0) + 1;
      await acquire();
      try {
        for (let attempt = 0; ; attempt += 1) {
          const base = bases[turn++ % bases.length];
          let outcome;
          try {
            outcome = await postOnce(base, path, body, style);
          } catch (error) {
            outcome = { status: 0, body: error.message };
          }
          if (outcome.status >= 200 && outcome.status < 300) {
            stats.posted += 1;
            if (/duplicate/i.test(outcome.body)) stats.duplicate += 1;
            else stats.stored += 1;
            break;
          }
          if (outcome.status >= 400 && outcome.status < 500) {
            stats.failures.push({ aggregate, seq, ...outcome });
            return;
          }
          stats.retried += 1;
          if (attempt > 600) {
            stats.failures.push({ aggregate, seq, ...outcome, gaveUp: true });
            return;
          }
          await sleep(100);
        }
      } finally {
        release();
      }
    }
  };
  await Promise.all(Array.from({ length: aggregates }, (_, a) => chain(a)));
  return stats;
}
