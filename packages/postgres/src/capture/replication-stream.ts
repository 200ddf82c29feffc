import { randomBytes } from 'node:crypto';
import type { Duplex } from 'node:stream';
import { toError, type ChangeListener, type ChangeStream } from '@queuebox/core';
import postgres from 'postgres';
import { sslFrom } from '../connection/pool.js';
import type { CaptureConnectionSettings } from './connection-settings.js';
import { OutboxChangeDecoder, parseServerMessage, statusUpdate } from './pgoutput.js';

export interface ReplicationStreamOptions {
  readonly settings: CaptureConnectionSettings;
  readonly connectTimeoutMs: number;
  /** `outbox.capture.slot`: the temporary slot is `<slot>_<8 hex digits>`, new per connection. */
  readonly slotPrefix: string;
  readonly publication: string;
  readonly schema: string;
  readonly table: string;
  readonly listener: ChangeListener;
  /** Aborting it ends a connection still being opened (the open then throws). */
  readonly signal?: AbortSignal;
  /** How often a status update (with a reply request) goes out; 1 s, tests shorten it. */
  readonly statusIntervalMs?: number;
  /** Silence after which the connection counts as dead; 5 s. */
  readonly silenceLimitMs?: number;
}

export interface ReplicationStream extends ChangeStream {
  /** The temporary slot this stream reads. */
  readonly slot: string;
}

const STATUS_INTERVAL_MS = 1_000;
const SILENCE_LIMIT_MS = 5_000;
const CLOSE_WAIT_MS = 2_000;

/**
 * A logical replication stream (pgoutput) on a TEMPORARY slot: the server drops the slot when
 * the connection ends, so nothing retains WAL while QueueBox is down or disconnected (the wake
 * on every start and the reconciliation timer cover what was committed meanwhile). A status
 * update every second confirms everything received, so the slot never holds WAL while it runs
 * either, and asks for a reply: a connection that stays silent past the limit (a half-open TCP
 * connection after a network cut) is ended, and the capture service starts a new one.
 *
 * The connection is postgres.js in `replication=database` mode, on which only the simple query
 * protocol works: the two commands are plain text with names the config loader validated.
 */
export async function openReplicationStream(
  options: ReplicationStreamOptions,
): Promise<ReplicationStream> {
  const { settings } = options;
  const sql = postgres({
    host: settings.host,
    port: settings.port,
    database: settings.database,
    username: settings.username,
    password: () => settings.password.reveal(),
    ssl: sslFrom(settings.params),
    max: 1,
    connect_timeout: Math.max(1, Math.ceil(options.connectTimeoutMs / 1000)),
    // One long-lived session: postgres.js must neither recycle it nor fetch types on it
    // (a replication connection refuses the extended protocol).
    idle_timeout: undefined,
    max_lifetime: null,
    fetch_types: false,
    onnotice: () => undefined,
    connection: { application_name: 'queuebox-capture', replication: 'database' },
  });
  const slot = `${options.slotPrefix.slice(0, 54)}_${randomBytes(4).toString('hex')}`;
  const abandon = (): void => void sql.end({ timeout: 0 }).catch(() => undefined);
  options.signal?.addEventListener('abort', abandon, { once: true });
  let stream: Duplex;
  let position: bigint;
  try {
    if (options.signal?.aborted) throw new Error('Capture was stopped.');
    const [created] = await sql.unsafe<{ consistent_point: string }[]>(
      `CREATE_REPLICATION_SLOT "${slot}" TEMPORARY LOGICAL pgoutput NOEXPORT_SNAPSHOT`,
    );
    const start = created?.consistent_point ?? '0/0';
    position = parseLsn(start);
    stream = (await sql
      .unsafe(
        `START_REPLICATION SLOT "${slot}" LOGICAL ${start} (proto_version '1', publication_names '"${options.publication}"')`,
      )
      .writable()) as unknown as Duplex;
  } catch (error: unknown) {
    await sql.end({ timeout: 0 }).catch(() => undefined);
    throw error;
  } finally {
    options.signal?.removeEventListener('abort', abandon);
  }
  return new RunningStream(sql, stream, slot, position, options);
}

class RunningStream implements ReplicationStream {
  readonly ended: Promise<void>;
  private settle!: (error: Error | null) => void;
  private readonly decoder: OutboxChangeDecoder;
  private readonly timer: NodeJS.Timeout;
  private lastHeardMs = performance.now();
  private finished = false;

  constructor(
    private readonly sql: postgres.Sql,
    private readonly stream: Duplex,
    readonly slot: string,
    private position: bigint,
    options: ReplicationStreamOptions,
  ) {
    this.ended = new Promise<void>((resolve, reject) => {
      this.settle = (error) => (error === null ? resolve() : reject(error));
    });
    // Whoever awaits `ended` sees the rejection; this keeps an unobserved one from crashing.
    this.ended.catch(() => undefined);
    this.decoder = new OutboxChangeDecoder(options.schema, options.table);
    const silenceLimitMs = options.silenceLimitMs ?? SILENCE_LIMIT_MS;
    stream.on('data', (chunk: Buffer) => this.received(chunk, options.listener));
    stream.on('error', (error: Error) => this.fail(error));
    stream.on('close', () => this.fail(new Error('The replication connection closed.')));
    this.timer = setInterval(() => {
      if (performance.now() - this.lastHeardMs > silenceLimitMs) {
        this.fail(new Error(`The replication connection was silent for ${silenceLimitMs} ms.`));
      } else {
        this.send(true);
      }
    }, options.statusIntervalMs ?? STATUS_INTERVAL_MS);
    this.timer.unref();
  }

  async close(): Promise<void> {
    if (this.finished) return;
    this.finish(null);
    // CopyDone first, so the server ends the stream and drops the slot in an orderly way.
    await new Promise<void>((resolve) => {
      const timeout = setTimeout(resolve, CLOSE_WAIT_MS);
      this.stream.once('close', () => {
        clearTimeout(timeout);
        resolve();
      });
      this.stream.end();
    });
    await this.sql.end({ timeout: 1 }).catch(() => undefined);
  }

  private received(chunk: Buffer, listener: ChangeListener): void {
    this.lastHeardMs = performance.now();
    const message = parseServerMessage(chunk);
    if (message.type === 'data') {
      if (message.walStart > this.position) this.position = message.walStart;
      const kind = this.decoder.decode(message.payload);
      if (kind !== null) listener.onChange(kind);
    } else if (message.type === 'keepalive') {
      if (message.walEnd > this.position) this.position = message.walEnd;
      if (message.replyRequested) this.send(false);
    }
  }

  private send(replyRequested: boolean): void {
    if (this.finished) return;
    this.stream.write(statusUpdate(this.position, Date.now(), replyRequested));
  }

  private fail(error: Error): void {
    if (this.finished) return;
    this.finish(toError(error));
    this.stream.destroy();
    void this.sql.end({ timeout: 0 }).catch(() => undefined);
  }

  private finish(error: Error | null): void {
    this.finished = true;
    clearInterval(this.timer);
    this.settle(error);
  }
}

/** `16/B374D848` → the 64-bit position. */
export function parseLsn(text: string): bigint {
  const [high = '0', low = '0'] = text.split('/');
  return (BigInt(`0x${high}`) << 32n) | BigInt(`0x${low}`);
}
