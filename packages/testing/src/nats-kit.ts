/**
 * A NATS JetStream scratch space for one test file (dev only): stream names and subjects under a
 * random prefix of the file's own, so files run in parallel on the shared server, and a cleanup
 * that deletes every stream the kit created or adopted. It publishes raw messages and reads what
 * a stream holds with a plain nats client, never through the adapter under test.
 */
import { randomBytes } from 'node:crypto';
import {
  jetstream,
  jetstreamManager,
  type JetStreamManager,
  type PubAck,
  type StreamConfig,
} from '@nats-io/jetstream';
import { connect, headers as natsHeaders, type NatsConnection } from '@nats-io/transport-node';

/** One message as a stream stored it. */
export interface StoredNatsMessage {
  readonly seq: number;
  readonly subject: string;
  readonly data: Uint8Array;
  readonly text: string;
  /** Every header with all its values, names as sent. */
  readonly headers: Readonly<Record<string, readonly string[]>>;
  readonly time: Date;
}

export interface NatsPublishOptions {
  readonly headers?: Readonly<Record<string, string>>;
  /** `Nats-Msg-Id`. */
  readonly msgId?: string;
}

export interface NatsKit {
  readonly url: string;
  /** `<PREFIX>_<suffix>` in upper case: a stream or consumer name unique to this kit. */
  name(suffix: string): string;
  /** `<prefix>.<suffix>`: a subject unique to this kit. */
  subject(suffix: string): string;
  /** The kit's own connection (opened on first use). */
  connection(): Promise<NatsConnection>;
  manager(): Promise<JetStreamManager>;
  /** Creates a stream (file storage) that cleanup deletes. */
  stream(
    name: string,
    subjects: readonly string[],
    config?: Partial<StreamConfig>,
  ): Promise<string>;
  /** Remembers a stream created elsewhere so cleanup deletes it. */
  adopt(stream: string): void;
  /** Publishes through JetStream and waits for the PubAck. */
  publish(
    subject: string,
    body: Uint8Array | string,
    options?: NatsPublishOptions,
  ): Promise<PubAck>;
  /** Every message the stream holds now, in stream order. */
  messages(stream: string): Promise<StoredNatsMessage[]>;
  /** Messages the durable has not yet had acknowledged: pending plus delivered-unacked. */
  outstanding(stream: string, durable: string): Promise<number>;
  /** Deletes what the kit created or adopted and closes its connection. */
  cleanup(): Promise<void>;
}

export function createNatsKit(url: string, prefix: string): NatsKit {
  const token = `${prefix}-${randomBytes(4).toString('hex')}`;
  const streams = new Set<string>();
  let opened: Promise<NatsConnection> | null = null;
  let jsm: Promise<JetStreamManager> | null = null;
  const connection = () => (opened ??= connect({ servers: url, name: `queuebox test ${token}` }));
  const manager = () => (jsm ??= connection().then((nc) => jetstreamManager(nc)));

  return {
    url,
    name: (suffix) => `${token}_${suffix}`.replace(/[^A-Za-z0-9_-]/g, '_').toUpperCase(),
    subject: (suffix) => `${token}.${suffix}`,
    connection,
    manager,
    async stream(name, subjects, config = {}) {
      streams.add(name);
      await (await manager()).streams.add({ name, subjects: [...subjects], ...config });
      return name;
    },
    adopt(stream) {
      streams.add(stream);
    },
    async publish(subject, body, options = {}) {
      const nc = await connection();
      const hdrs = natsHeaders();
      for (const [name, value] of Object.entries(options.headers ?? {})) hdrs.append(name, value);
      const data = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
      return jetstream(nc).publish(subject, data, {
        headers: hdrs,
        ...(options.msgId === undefined ? {} : { msgID: options.msgId }),
      });
    },
    async messages(stream) {
      const m = await manager();
      const { state } = await m.streams.info(stream);
      const stored: StoredNatsMessage[] = [];
      if (state.messages === 0) return stored;
      for (let seq = state.first_seq; seq <= state.last_seq; seq++) {
        const message = await m.streams.getMessage(stream, { seq }).catch(() => null);
        if (message === null) continue;
        const headers: Record<string, string[]> = {};
        for (const [name, values] of message.header ?? []) headers[name] = [...values];
        stored.push({
          seq,
          subject: message.subject,
          data: message.data,
          text: Buffer.from(message.data).toString('utf8'),
          headers,
          time: message.time,
        });
      }
      return stored;
    },
    async outstanding(stream, durable) {
      const info = await (await manager()).consumers.info(stream, durable);
      return info.num_pending + info.num_ack_pending;
    },
    async cleanup() {
      if (opened === null) return;
      const m = await manager();
      for (const stream of streams) await m.streams.delete(stream).catch(() => undefined);
      streams.clear();
      const nc = await opened;
      opened = null;
      jsm = null;
      await nc.close().catch(() => undefined);
    },
  };
}
