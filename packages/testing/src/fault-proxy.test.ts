import { once } from 'node:events';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFaultProxy, type FaultProxy } from './fault-proxy.js';
import { freePort } from './ports.js';
import { until } from './wait.js';

/** A real echo server: every byte comes back; an end is answered with an end. */
interface EchoServer {
  readonly port: number;
  /** Sockets the echo server accepted, open or not. */
  readonly sockets: Socket[];
  /** How each of them ended: 'end' (a FIN came), 'error' (an RST came), or still open. */
  readonly endings: ('end' | 'error' | 'open')[];
  close(): Promise<void>;
}

async function startEcho(): Promise<EchoServer> {
  const sockets: Socket[] = [];
  const endings: ('end' | 'error' | 'open')[] = [];
  const server: Server = createServer({ allowHalfOpen: true }, (socket) => {
    const index = sockets.push(socket) - 1;
    endings[index] = 'open';
    socket.on('data', (chunk: Buffer) => socket.write(chunk));
    socket.on('end', () => {
      if (endings[index] === 'open') endings[index] = 'end';
      socket.end();
    });
    socket.on('error', () => {
      endings[index] = 'error';
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    port,
    sockets,
    endings,
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A client that records what it receives and how its connection ended. */
interface Client {
  readonly socket: Socket;
  received(): string;
  /** Resolves with 'end' (FIN), the error code (e.g. ECONNRESET), or 'close'. */
  readonly ended: Promise<string>;
  /** Resolves once `text` has arrived in full. */
  waitFor(text: string, timeoutMs?: number): Promise<void>;
}

async function dial(port: number): Promise<Client> {
  const socket = connect({ host: '127.0.0.1', port, allowHalfOpen: true });
  let received = '';
  const listeners = new Set<() => void>();
  socket.on('data', (chunk: Buffer) => {
    received += chunk.toString('utf8');
    for (const listener of listeners) listener();
  });
  const ended = new Promise<string>((resolve) => {
    socket.once('end', () => resolve('end'));
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
    socket.once('close', () => resolve('close'));
  });
  await Promise.race([once(socket, 'connect'), ended]);
  return {
    socket,
    received: () => received,
    ended,
    waitFor: (text, timeoutMs = 5_000) =>
      new Promise<void>((resolve, reject) => {
        const check = () => {
          if (!received.includes(text)) return;
          listeners.delete(check);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(() => {
          listeners.delete(check);
          reject(new Error(`'${text}' did not arrive within ${timeoutMs} ms (got '${received}')`));
        }, timeoutMs);
        listeners.add(check);
        check();
      }),
  };
}

describe('the TCP fault proxy in front of a real echo server', () => {
  let echo: EchoServer;
  let proxy: FaultProxy;
  const clients: Client[] = [];

  beforeEach(async () => {
    echo = await startEcho();
    proxy = await startFaultProxy({ target: { host: '127.0.0.1', port: echo.port } });
  });

  afterEach(async () => {
    for (const client of clients.splice(0)) client.socket.destroy();
    await proxy.close();
    await echo.close();
  });

  async function client(): Promise<Client> {
    const opened = await dial(proxy.port);
    clients.push(opened);
    return opened;
  }

  it('listens on 127.0.0.1 and forwards bytes both ways, counting connections', async () => {
    expect(proxy.host).toBe('127.0.0.1');
    expect(proxy.port).toBeGreaterThan(0);
    const a = await client();
    const b = await client();
    a.socket.write('hello ');
    b.socket.write('ünïcode ✓');
    a.socket.write('world');
    await a.waitFor('hello world');
    await b.waitFor('ünïcode ✓');
    expect(echo.sockets).toHaveLength(2);
    expect(proxy.stats()).toEqual({ accepted: 2, refused: 0, cut: 0, open: 2 });
  });

  it('carries 4 MiB each way intact and in order', async () => {
    const a = await client();
    const payload = Buffer.alloc(4 << 20);
    for (let i = 0; i < payload.length; i++) payload[i] = (i * 7 + (i >> 12)) & 0xff;
    const chunks: Buffer[] = [];
    let length = 0;
    a.socket.removeAllListeners('data');
    a.socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      length += chunk.length;
    });
    a.socket.end(payload);
    await until(() => length >= payload.length, 15_000);
    expect(Buffer.concat(chunks).equals(payload)).toBe(true);
    expect(await a.ended).toBe('end');
  });

  it('passes a half-close through: the client ends, the echo ends after answering', async () => {
    const a = await client();
    a.socket.end('last words');
    expect(await a.ended).toBe('end');
    expect(a.received()).toBe('last words');
    await until(() => echo.endings[0] === 'end');
    await until(() => proxy.stats().open === 0);
  });

  it('refuses new connections while open ones go on, until restore', async () => {
    const open = await client();
    proxy.refuse();
    const refused = await client();
    expect(await refused.ended).toBe('ECONNRESET');
    expect(echo.sockets).toHaveLength(1);
    open.socket.write('still here');
    await open.waitFor('still here');

    proxy.restore();
    const later = await client();
    later.socket.write('back');
    await later.waitFor('back');
    expect(proxy.stats()).toEqual({ accepted: 2, refused: 1, cut: 0, open: 2 });
  });

  it('cuts every open connection with an RST both ways', async () => {
    const a = await client();
    const b = await client();
    a.socket.write('x');
    b.socket.write('y');
    await a.waitFor('x');
    await b.waitFor('y');
    proxy.cut();
    expect(await a.ended).toBe('ECONNRESET');
    expect(await b.ended).toBe('ECONNRESET');
    await until(() => echo.endings.every((ending) => ending === 'error'));
    expect(proxy.stats()).toEqual({ accepted: 2, refused: 0, cut: 2, open: 0 });

    // A cut is not a refusal: the next connection forwards again.
    const c = await client();
    c.socket.write('z');
    await c.waitFor('z');
  });

  it('cuts with a FIN both ways when asked to close', async () => {
    const a = await client();
    a.socket.write('x');
    await a.waitFor('x');
    proxy.cut('close');
    expect(await a.ended).toBe('end');
    await until(() => echo.endings[0] === 'end');
    expect(proxy.stats().open).toBe(0);
  });

  it('drops what was held back when it cuts', async () => {
    const a = await client();
    proxy.setLatency(200);
    a.socket.write('never arrives');
    await new Promise((resolve) => setTimeout(resolve, 20));
    proxy.cut();
    expect(await a.ended).toBe('ECONNRESET');
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect(a.received()).toBe('');
  });

  it('adds latency per chunk in each direction and keeps the order', async () => {
    const a = await client();
    const roundTrip = async (text: string) => {
      const started = performance.now();
      a.socket.write(text);
      await a.waitFor(text);
      return performance.now() - started;
    };
    expect(await roundTrip('warm')).toBeLessThan(100);

    proxy.setLatency({ toTarget: 150 });
    const oneWay = await roundTrip('one');
    expect(oneWay).toBeGreaterThanOrEqual(145);

    proxy.setLatency({ toClient: 150 });
    expect(await roundTrip('two')).toBeGreaterThanOrEqual(295);

    proxy.setLatency(0);
    expect(await roundTrip('three')).toBeLessThan(100);

    proxy.setLatency(30);
    const parts = Array.from({ length: 50 }, (_, i) => `<${i}>`);
    for (const part of parts) a.socket.write(part);
    await a.waitFor(parts.join(''), 5_000);
  });

  it('resets the client when the target does not answer', async () => {
    const nobody = await freePort();
    const dead = await startFaultProxy({ target: { host: '127.0.0.1', port: nobody } });
    try {
      const a = await dial(dead.port);
      clients.push(a);
      expect(await a.ended).toBe('ECONNRESET');
      await until(() => dead.stats().open === 0);
      expect(dead.stats().accepted).toBe(1);
    } finally {
      await dead.close();
    }
  });

  it('closes: every connection reset, the port no longer listening', async () => {
    const a = await client();
    a.socket.write('x');
    await a.waitFor('x');
    await proxy.close();
    expect(await a.ended).toBe('ECONNRESET');
    const after = await dial(proxy.port);
    expect(await after.ended).toBe('ECONNREFUSED');
    proxy = await startFaultProxy({ target: { host: '127.0.0.1', port: echo.port } });
  });
});
