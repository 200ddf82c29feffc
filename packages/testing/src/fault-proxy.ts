/**
 * A TCP fault proxy (dev only) between QueueBox and a service it talks to (PostgreSQL, a broker):
 * it listens on a free 127.0.0.1 port and forwards every connection to the target, and a test
 * can refuse new connections, cut the open ones, restore, and hold traffic back. Outage tests use
 * it instead of stopping a shared service that other test files are using at the same moment.
 */
import { createServer, connect, type Server, type Socket } from 'node:net';

export interface FaultProxyOptions {
  readonly target: { readonly host: string; readonly port: number };
  /** Where to listen; a free port on 127.0.0.1 by default. */
  readonly port?: number;
}

/** `reset`: an RST each way, as a dead peer or a firewall does. `close`: a FIN each way. */
export type CutMode = 'reset' | 'close';

/** Milliseconds each chunk is held before it is forwarded, per direction. */
export interface Latency {
  /** Client → target (the queries, the publishes). */
  readonly toTarget: number;
  /** Target → client (the answers). */
  readonly toClient: number;
}

export interface FaultProxyStats {
  /** Connections accepted and forwarded since the start. */
  readonly accepted: number;
  /** Connections reset on arrival while refusing. */
  readonly refused: number;
  /** Connections cut by `cut()` or `close()`. */
  readonly cut: number;
  /** Forwarded connections open now. */
  readonly open: number;
}

export interface FaultProxy {
  readonly host: string;
  readonly port: number;
  /** Resets every new connection on arrival (the client sees ECONNRESET); open ones go on. */
  refuse(): void;
  /** Ends every open connection in both directions (RST by default); new ones still forward. */
  cut(mode?: CutMode): void;
  /** Forwards new connections again. Latency stays until `setLatency(0)`. */
  restore(): void;
  /** Holds every chunk `ms` before forwarding it: one figure for both directions, or each. */
  setLatency(latency: number | Partial<Latency>): void;
  stats(): FaultProxyStats;
  /** Cuts every connection (RST) and stops listening. */
  close(): Promise<void>;
}

/** Past this many held bytes in one direction the sender is paused, as a full socket would. */
const MAX_HELD_BYTES = 1 << 20;

export async function startFaultProxy(options: FaultProxyOptions): Promise<FaultProxy> {
  const links = new Set<Link>();
  let latency: Latency = { toTarget: 0, toClient: 0 };
  let refusing = false;
  const counts = { accepted: 0, refused: 0, cut: 0 };

  const server: Server = createServer({ allowHalfOpen: true, noDelay: true }, (client) => {
    if (refusing) {
      counts.refused++;
      client.resetAndDestroy();
      return;
    }
    counts.accepted++;
    const link = new Link(
      client,
      options.target,
      () => latency,
      () => links.delete(link),
    );
    links.add(link);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;

  const cutAll = (mode: CutMode) => {
    for (const link of [...links]) {
      counts.cut++;
      link.cut(mode);
    }
  };

  return {
    host: '127.0.0.1',
    port,
    refuse: () => {
      refusing = true;
    },
    cut: (mode = 'reset') => cutAll(mode),
    restore: () => {
      refusing = false;
    },
    setLatency: (next) => {
      latency =
        typeof next === 'number'
          ? { toTarget: next, toClient: next }
          : {
              toTarget: next.toTarget ?? latency.toTarget,
              toClient: next.toClient ?? latency.toClient,
            };
    },
    stats: () => ({ ...counts, open: links.size }),
    close: () =>
      new Promise<void>((resolve) => {
        refusing = true;
        cutAll('reset');
        server.close(() => resolve());
      }),
  };
}

/** One client connection and its connection to the target. */
class Link {
  private readonly upstream: Socket;
  private readonly directions: Direction[];
  private done = false;

  constructor(
    private readonly client: Socket,
    target: FaultProxyOptions['target'],
    latency: () => Latency,
    private readonly onDone: () => void,
  ) {
    this.upstream = connect({ host: target.host, port: target.port, allowHalfOpen: true });
    this.upstream.setNoDelay(true);
    this.directions = [
      new Direction(client, this.upstream, () => latency().toTarget),
      new Direction(this.upstream, client, () => latency().toClient),
    ];
    for (const socket of [client, this.upstream]) {
      // A peer that vanishes (RST, unreachable target) takes the other side down the same way.
      socket.on('error', () => this.cut('reset'));
      socket.on('close', () => {
        if (client.destroyed && this.upstream.destroyed) this.finish();
      });
    }
  }

  cut(mode: CutMode): void {
    if (this.done) return;
    for (const direction of this.directions) direction.stop();
    for (const socket of [this.client, this.upstream]) {
      if (socket.destroyed) continue;
      if (mode === 'reset') resetSocket(socket);
      else socket.destroySoon();
    }
    this.finish();
  }

  private finish(): void {
    if (this.done) return;
    this.done = true;
    this.onDone();
  }
}

/** `resetAndDestroy` throws on a socket that is not connected yet; plain destroy is the fallback. */
function resetSocket(socket: Socket): void {
  try {
    socket.resetAndDestroy();
  } catch {
    socket.destroy();
  }
}

/** Bytes one way, in order, each chunk held for the current latency. */
class Direction {
  private readonly held: { chunk: Buffer; due: number }[] = [];
  private heldBytes = 0;
  private timer: NodeJS.Timeout | undefined;
  private ended = false;
  private stopped = false;

  constructor(
    private readonly from: Socket,
    private readonly to: Socket,
    private readonly delayMs: () => number,
  ) {
    from.on('data', (chunk: Buffer) => this.receive(chunk));
    from.on('end', () => {
      this.ended = true;
      this.flush();
    });
    to.on('drain', () => {
      if (!this.stopped && this.heldBytes < MAX_HELD_BYTES) from.resume();
    });
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.held.length = 0;
    this.heldBytes = 0;
  }

  private receive(chunk: Buffer): void {
    if (this.stopped) return;
    const delay = this.delayMs();
    if (delay <= 0 && this.held.length === 0) {
      this.write(chunk);
      return;
    }
    this.held.push({ chunk, due: performance.now() + delay });
    this.heldBytes += chunk.length;
    if (this.heldBytes >= MAX_HELD_BYTES) this.from.pause();
    this.schedule();
  }

  private write(chunk: Buffer): void {
    if (this.to.destroyed) return;
    if (!this.to.write(chunk)) this.from.pause();
  }

  private schedule(): void {
    if (this.timer !== undefined || this.held.length === 0) return;
    const wait = Math.max(0, this.held[0]!.due - performance.now());
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.flush();
    }, wait);
  }

  /** Forwards every chunk that is due, then the end once nothing is held any more. */
  private flush(): void {
    if (this.stopped) return;
    const now = performance.now();
    while (this.held.length > 0 && this.held[0]!.due <= now) {
      const { chunk } = this.held.shift()!;
      this.heldBytes -= chunk.length;
      this.write(chunk);
    }
    if (this.heldBytes < MAX_HELD_BYTES && !this.to.writableNeedDrain) this.from.resume();
    if (this.held.length > 0) this.schedule();
    else if (this.ended && !this.to.destroyed) this.to.end();
  }
}
