/**
 * A RabbitMQ scratch space for one test file (dev only): exchange and queue names under a random
 * prefix of the file's own, so files run in parallel on the shared broker, and a cleanup that
 * deletes every exchange and queue the kit declared. It publishes raw messages and reads what
 * arrived with a plain amqplib client, never through the adapter under test.
 */
import { randomBytes } from 'node:crypto';
import {
  connect,
  type Channel,
  type ChannelModel,
  type ConfirmChannel,
  type ConsumeMessage,
  type Options,
} from 'amqplib';

/** One message as a queue received it. */
export interface ReceivedAmqpMessage {
  readonly body: Buffer;
  readonly text: string;
  readonly exchange: string;
  readonly routingKey: string;
  readonly redelivered: boolean;
  readonly properties: ConsumeMessage['properties'];
  /** `properties.headers`, never undefined. */
  readonly headers: Record<string, unknown>;
}

export interface QueueCollector {
  readonly queue: string;
  /** Every message received so far, in arrival order (each is acked on arrival). */
  readonly messages: ReceivedAmqpMessage[];
  /** Resolves once `count` messages arrived, or rejects after `timeoutMs`. */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedAmqpMessage[]>;
  stop(): Promise<void>;
}

export interface RabbitKit {
  readonly url: string;
  /** `<prefix>.<suffix>`: unique to this kit. */
  name(suffix: string): string;
  /** A channel of the kit's own connection (opened on first use). */
  channel(): Promise<Channel>;
  /** Declares a durable exchange that cleanup deletes. */
  exchange(name: string, type?: string): Promise<string>;
  /** Declares a durable queue that cleanup deletes, bound to `exchange` by each pattern. */
  queue(
    name: string,
    bind?: { readonly exchange: string; readonly patterns: readonly string[] },
    options?: Options.AssertQueue,
  ): Promise<string>;
  /** Remembers a name declared elsewhere (by the code under test) so cleanup deletes it. */
  adopt(kind: 'exchange' | 'queue', name: string): void;
  /** Consumes a queue, acking each message, and records what came. */
  collect(queue: string): Promise<QueueCollector>;
  /** Publishes through the default exchange straight to a queue; resolves once confirmed. */
  sendToQueue(queue: string, body: Buffer | string, options?: Options.Publish): Promise<void>;
  /** Ready messages in a queue (not those delivered and unacked), via queue.declare passive. */
  messageCount(queue: string): Promise<number>;
  /** Deletes what the kit declared or adopted and closes its connection. */
  cleanup(): Promise<void>;
}

/** Connects lazily: the first declaration or publish opens the kit's connection. */
export function createRabbitKit(url: string, prefix: string): Promise<RabbitKit> {
  const base = `${prefix}.${randomBytes(4).toString('hex')}`;
  const exchanges = new Set<string>();
  const queues = new Set<string>();
  const collectors = new Set<QueueCollector>();
  let model: ChannelModel | null = null;
  let channelPromise: Promise<Channel> | null = null;
  let confirmPromise: Promise<ConfirmChannel> | null = null;

  const connection = async (): Promise<ChannelModel> => {
    if (model === null) {
      model = await connect(url);
      model.on('error', () => undefined);
    }
    return model;
  };
  const channel = (): Promise<Channel> => {
    channelPromise ??= connection().then(async (m) => {
      const ch = await m.createChannel();
      // A passive declare of a missing queue closes the channel: open a new one next time.
      ch.on('error', () => undefined);
      ch.on('close', () => {
        channelPromise = null;
      });
      return ch;
    });
    return channelPromise;
  };
  const confirm = () => {
    confirmPromise ??= connection().then(async (m) => {
      const ch = await m.createConfirmChannel();
      ch.on('error', () => undefined);
      ch.on('close', () => {
        confirmPromise = null;
      });
      return ch;
    });
    return confirmPromise;
  };

  return Promise.resolve({
    url,
    name: (suffix) => `${base}.${suffix}`,
    channel,
    async exchange(name, type = 'topic') {
      exchanges.add(name);
      await (await channel()).assertExchange(name, type, { durable: true });
      return name;
    },
    async queue(name, bind, options) {
      queues.add(name);
      const ch = await channel();
      await ch.assertQueue(name, { durable: true, ...options });
      if (bind) {
        for (const pattern of bind.patterns) await ch.bindQueue(name, bind.exchange, pattern);
      }
      return name;
    },
    adopt(kind, name) {
      (kind === 'exchange' ? exchanges : queues).add(name);
    },
    async collect(queue) {
      const m = await connection();
      const ch = await m.createChannel();
      ch.on('error', () => undefined);
      const messages: ReceivedAmqpMessage[] = [];
      const waiters = new Set<() => void>();
      const { consumerTag } = await ch.consume(queue, (message) => {
        if (message === null) return;
        messages.push({
          body: message.content,
          text: message.content.toString('utf8'),
          exchange: message.fields.exchange,
          routingKey: message.fields.routingKey,
          redelivered: message.fields.redelivered,
          properties: message.properties,
          headers: message.properties.headers ?? {},
        });
        ch.ack(message);
        for (const waiter of waiters) waiter();
      });
      const collector: QueueCollector = {
        queue,
        messages,
        waitFor(count, timeoutMs = 15_000) {
          return new Promise((resolve, reject) => {
            const check = () => {
              if (messages.length < count) return;
              cleanupWaiter();
              resolve(messages.slice());
            };
            const timer = setTimeout(() => {
              cleanupWaiter();
              reject(
                new Error(
                  `queue ${queue}: ${messages.length} of ${count} messages within ${timeoutMs} ms`,
                ),
              );
            }, timeoutMs);
            const cleanupWaiter = () => {
              clearTimeout(timer);
              waiters.delete(check);
            };
            waiters.add(check);
            check();
          });
        },
        async stop() {
          collectors.delete(collector);
          try {
            await ch.cancel(consumerTag);
            await ch.close();
          } catch {
            // Closed already (the connection went with cleanup).
          }
        },
      };
      collectors.add(collector);
      return collector;
    },
    async sendToQueue(queue, body, options) {
      const ch = await confirm();
      const content = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
      await new Promise<void>((resolve, reject) => {
        ch.sendToQueue(queue, content, options ?? {}, (error: unknown) =>
          error
            ? reject(error instanceof Error ? error : new Error('publish not confirmed'))
            : resolve(),
        );
      });
    },
    async messageCount(queue) {
      return (await (await channel()).checkQueue(queue)).messageCount;
    },
    async cleanup() {
      for (const collector of [...collectors]) await collector.stop();
      if (model === null && queues.size === 0 && exchanges.size === 0) return;
      try {
        // One failed delete closes the channel; the next one opens another.
        for (const queue of queues)
          await (await channel()).deleteQueue(queue).catch(() => undefined);
        for (const exchange of exchanges)
          await (await channel()).deleteExchange(exchange).catch(() => undefined);
      } finally {
        const open = model;
        model = null;
        channelPromise = null;
        confirmPromise = null;
        await open?.close().catch(() => undefined);
      }
    },
  });
}
