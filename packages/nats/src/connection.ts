/**
 * Opening and closing one NATS connection, for the publisher and the source alike (spec §6.4,
 * §7.8, §16.2): the server list split on commas, credentials passed as options and never in a
 * URL, reconnection without end. The nats.js client re-establishes a lost connection itself and
 * reports each loss and return on its status stream; `ConnectionState` turns those reports
 * into one flag and an epoch that grows with every loss, so a caller can tell whether something
 * it sent belongs to the connection that is open now.
 */
import { connect, type NatsConnection, type NodeConnectionOptions } from '@nats-io/transport-node';
import { sanitize, settledWithin, toError, type NatsCredentials } from '@queuebox/core';

/** How long a graceful close (flush, then close) may take before the connection is dropped. */
export const CLOSE_GRACE_MS = 1_000;

/** The wait between reconnection attempts (the client adds up to 100 ms of jitter). */
export const RECONNECT_WAIT_MS = 250;

export interface OpenOptions {
  /** The comma-separated `servers` key. */
  readonly servers: string;
  readonly credentials: NatsCredentials;
  /** Shown as the client name in the server's connection list: `queuebox <role> <name>`. */
  readonly name: string;
  readonly timeoutMs: number;
}

/** Spec §6.4: split on commas, trimmed, empty entries removed. */
export function serverList(servers: string): string[] {
  return servers
    .split(',')
    .map((server) => server.trim())
    .filter((server) => server !== '');
}

export function connectionOptions(options: OpenOptions): NodeConnectionOptions {
  const { credentials } = options;
  return {
    servers: serverList(options.servers),
    name: options.name,
    timeout: options.timeoutMs,
    maxReconnectAttempts: -1,
    reconnectTimeWait: RECONNECT_WAIT_MS,
    // Without it the client builds an Error (a stack capture) for every request, answered or
    // not, to report where a timeout came from: a visible share of QueueBox's CPU under a
    // JetStream backlog. QueueBox reports a timeout by message id, never by stack.
    noAsyncTraces: true,
    ...(credentials.username === null
      ? {}
      : { user: credentials.username, pass: credentials.password?.reveal() ?? '' }),
    ...(credentials.token === null ? {} : { token: credentials.token.reveal() }),
  };
}

/** Connects; rejects with a sanitized error (a server URL may carry credentials). */
export async function openConnection(options: OpenOptions): Promise<NatsConnection> {
  try {
    return await connect(connectionOptions(options));
  } catch (error: unknown) {
    throw new Error(`Connecting to NATS failed: ${errorText(error)}`, { cause: error });
  }
}

/**
 * Flushes what was sent (acks, publishes) within CLOSE_GRACE_MS, then closes. A server that
 * stopped answering never holds a shutdown. Never rejects.
 */
export async function closeConnection(connection: NatsConnection): Promise<void> {
  if (connection.isClosed()) return;
  if (!connection.isDraining()) {
    await within(
      connection.flush().catch(() => undefined),
      CLOSE_GRACE_MS,
    );
  }
  await within(
    connection.close().catch(() => undefined),
    CLOSE_GRACE_MS,
  );
}

/** Waits for `work` at most `ms`; never rejects. */
export async function within(work: Promise<unknown>, ms: number): Promise<void> {
  await settledWithin([work], ms);
}

/**
 * A NATS or network error as one sanitized line. nats.js 3 words a failed connect in general
 * terms (`connection refused`) and keeps the socket's error, which names the server
 * (`connect ECONNREFUSED 10.0.0.5:4222`), as its cause: the line carries both.
 */
export function errorText(error: unknown): string {
  const err = toError(error);
  const code = (err as { code?: unknown }).code;
  const text = err.message === '' && typeof code === 'string' ? code : err.message;
  const cause = err.cause instanceof Error ? err.cause.message : '';
  return sanitize(cause === '' || text.includes(cause) ? text : `${text} (${cause})`);
}

/**
 * Whether the connection is usable now, and which connection it is: `epoch` grows with every
 * disconnect, so what was fetched or sent under an older epoch went over a connection that is
 * gone. Listeners hear every flip of `connected`.
 */
export class ConnectionState {
  #connected = true;
  #epoch = 0;
  readonly #listeners = new Set<(connected: boolean) => void>();

  constructor(connection: NatsConnection) {
    void this.#watch(connection);
  }

  get connected(): boolean {
    return this.#connected;
  }

  get epoch(): number {
    return this.#epoch;
  }

  /** Calls `listener` on every change until the returned function is called. */
  listen(listener: (connected: boolean) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Resolves once connected (at once if connected), or when `signal` aborts. */
  whenConnected(signal: AbortSignal): Promise<void> {
    if (this.#connected || signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        stop();
        signal.removeEventListener('abort', done);
        resolve();
      };
      const stop = this.listen((connected) => {
        if (connected) done();
      });
      signal.addEventListener('abort', done, { once: true });
    });
  }

  async #watch(connection: NatsConnection): Promise<void> {
    try {
      for await (const status of connection.status()) {
        if (status.type === 'disconnect') this.#set(false);
        else if (status.type === 'reconnect') this.#set(true);
      }
    } catch {
      // The status stream ends with the connection.
    }
    this.#set(false);
  }

  #set(connected: boolean): void {
    if (connected === this.#connected) return;
    this.#connected = connected;
    if (!connected) this.#epoch += 1;
    for (const listener of [...this.#listeners]) listener(connected);
  }
}
