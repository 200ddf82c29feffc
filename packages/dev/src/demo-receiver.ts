import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { Logger } from '@queuebox/core';
import { LOOPBACK } from './ports.js';

/** The demo destination: an HTTP server that logs each delivery and answers 200. */
export interface DemoReceiver {
  /** `http://127.0.0.1:<port>`, what the demo configuration's `RECEIVER_URL` is set to. */
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

const MAX_LOGGED_BODY = 2000;

/**
 * Starts on a free loopback port (or `port`). Every request is logged as one line:
 * `Demo receiver got POST /webhook topic=<X-Topic> id=<X-Message-Id> inbox-id=<x-inbox-id>: <body>`,
 * so a newcomer sees the outbox deliver without running a receiver of their own. A message the
 * inbox relayed carries `x-inbox-id`, the `messageId` the webhook answered with, so its request
 * and its delivery can be matched.
 */
export async function startDemoReceiver(logger: Logger, port = 0): Promise<DemoReceiver> {
  const server = createServer((request, response) => {
    void readBody(request).then((body) => {
      const topic = header(request, 'x-topic');
      const id = header(request, 'x-message-id');
      const inboxId = header(request, 'x-inbox-id');
      const shown = body.length > MAX_LOGGED_BODY ? `${body.slice(0, MAX_LOGGED_BODY)}...` : body;
      logger.info(
        `Demo receiver got ${request.method ?? 'GET'} ${request.url ?? '/'}` +
          `${topic === null ? '' : ` topic=${topic}`}${id === null ? '' : ` id=${id}`}` +
          `${inboxId === null ? '' : ` inbox-id=${inboxId}`}: ${shown}`,
      );
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}');
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, LOOPBACK, () => resolve());
  });
  const address = server.address();
  const bound = typeof address === 'object' && address !== null ? address.port : port;
  return { url: `http://${LOOPBACK}:${bound}`, port: bound, close: () => closeServer(server) };
}

function header(request: IncomingMessage, name: string): string | null {
  const value = request.headers[name];
  return typeof value === 'string' ? value : null;
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_LOGGED_BODY * 4) chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
