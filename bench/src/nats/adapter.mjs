/**
 * What QueueBox's NATS scenarios need of the server (see ../lib/queuebox-broker.mjs): the outbox
 * delivers to a file-storage JetStream stream at its defaults; the source stores a loaded stream
 * at its defaults (batchSize 100) through a durable consumer QueueBox creates.
 */
import { NATS_URL, publishAcked } from './server.mjs';

const DURABLE = 'queuebox-bench';

export const natsAdapter = (server) => ({
  name: 'NATS JetStream',
  key: 'ns',
  publish: {
    target: 'stream',
    countKey: 'inStream',
    note: `QueueBox defaults for everything else (outbox.batchSize 100, pollIntervalMs 100, jetStream true, timeoutMs 30000); one file-storage stream takes the subject`,
    scratch: (id) => server.scratch(id),
    destination: (scratch) => ({ type: 'nats', servers: NATS_URL, subject: scratch.subject }),
    count: (scratch) => scratch.count(),
  },
  source: {
    name: 'NATS',
    title: 'NATS source → inbox, batchSize 100 (default)',
    note: 'QueueBox defaults for everything else (batchSize 100, ackWaitMs 30000, key from Nats-Msg-Id; the durable consumer is created by QueueBox); the relay is off so only ingestion is measured; the stream was filled first by a plain client (64 in flight)',
    scratch: (id) => server.scratch(id),
    filled: (scratch, rows) => `${rows} messages into stream ${scratch.stream}`,
    // The source's key: Nats-Msg-Id.
    fill: (scratch, rows, body) =>
      publishAcked(server.connection, { subject: scratch.subject, count: rows, inFlight: 64, body, msgId: (i) => `m-${i}` }),
    config: (scratch) => ({ type: 'nats', servers: NATS_URL, stream: scratch.stream, durable: DURABLE }),
    leftKey: 'leftInStream',
    async left(scratch) {
      const info = await server.jsm.consumers.info(scratch.stream, DURABLE);
      return info.num_pending + info.num_ack_pending;
    },
  },
});
