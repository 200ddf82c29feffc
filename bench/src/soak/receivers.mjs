/**
 * The soak's two receivers. The HTTP sink (startHttpSink of @queuebox/testing) refuses with 503
 * the first attempt (X-Attempt: 0) of 5 % of the message ids, chosen by a hash of the id so the
 * share is the same in every run, and answers 0.5 % of the requests only after 1-3 s, as a
 * receiver under load does. It keeps one ledger for the outbox rows (/orders) and one for the
 * relayed webhooks (/hooks). The RabbitMQ receiver is a plain amqplib consumer of the queue bound
 * to the destination's exchange (createRabbitKit), read into a ledger at the end.
 */
import { createHash } from 'node:crypto';
import { startHttpSink } from '@queuebox/testing';
import { OrderLedger } from './order-ledger.mjs';

const FAIL_FIRST_PER_MILLE = 50;
const SLOW_PER_MILLE = 5;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function refusedFirst(id) {
  return createHash('sha1').update(id).digest().readUInt16BE(0) % 1000 < FAIL_FIRST_PER_MILLE;
}

export async function startSoakSink() {
  const ledgers = { orders: new OrderLedger('http /orders'), hooks: new OrderLedger('http /hooks') };
  const counts = { requests: 0, refused: 0, slow: 0, unknown: 0 };
  const sink = await startHttpSink(async (request, response) => {
    counts.requests += 1;
    const id = String(request.headers['x-message-id'] ?? '');
    if (request.headers['x-attempt'] === '0' && refusedFirst(id)) {
      counts.refused += 1;
      response.writeHead(503, { 'content-type': 'text/plain' }).end('try again');
      return;
    }
    if (Math.random() * 1000 < SLOW_PER_MILLE) {
      counts.slow += 1;
      await sleep(1000 + Math.random() * 2000);
    }
    const ledger = request.url.startsWith('/hooks') ? ledgers.hooks : ledgers.orders;
    let body;
    try {
      body = JSON.parse(request.body);
    } catch {
      body = null;
    }
    if (body === null || typeof body.seq !== 'number') {
      counts.unknown += 1;
    } else {
      // A webhook is identified by its own id (the relayed row's id is new per inbox row anyway).
      const key = request.url.startsWith('/hooks') ? body.aggregate : body.key;
      ledger.accept(request.url.startsWith('/hooks') ? body.id : id, key, body.seq);
    }
    response.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    // The sink keeps every request; the soak needs only the ledgers.
    sink.requests.length = 0;
  });
  return { sink, ledgers, counts };
}

/** The queue's messages in arrival order, through the ledger (message_id = outbox row id). */
export function rabbitLedger(collector) {
  const ledger = new OrderLedger('rabbitmq queue');
  let unknown = 0;
  for (const message of collector.messages) {
    let body;
    try {
      body = JSON.parse(message.text);
    } catch {
      body = null;
    }
    if (body === null || typeof body.seq !== 'number') unknown += 1;
    else ledger.accept(String(message.properties.messageId), body.key, body.seq);
  }
  return { ledger, unknown };
}
