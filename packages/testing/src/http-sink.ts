/**
 * A real HTTP receiver for publisher tests (dev only; not exported by the package): a node:http
 * server on 127.0.0.1 and a free port that records every request and answers as the test says.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SinkRequest {
  readonly method: string;
  readonly url: string;
  /** Node's merged view: duplicate names joined with ", ". */
  readonly headers: IncomingMessage['headers'];
  /** Name/value pairs as they came over the wire, duplicates kept. */
  readonly rawHeaders: readonly string[];
  readonly body: string;
  /** When the request's headers arrived, in `performance.now()` ms. */
  readonly atMs: number;
}

export type SinkHandler = (request: SinkRequest, response: ServerResponse) => void | Promise<void>;

export interface HttpSink {
  readonly url: string;
  readonly port: number;
  readonly requests: SinkRequest[];
  /** Sockets the server accepted so far: tells whether keep-alive reused connections. */
  readonly connections: () => number;
  /** Requests being answered now (arrived, response not finished), and the most at once. */
  readonly concurrent: () => number;
  readonly maxConcurrent: () => number;
  handle(handler: SinkHandler): void;
  close(): Promise<void>;
}

const accept: SinkHandler = (_request, response) => {
  response.writeHead(200, { 'content-type': 'text/plain' });
  response.end('ok');
};

export async function startHttpSink(handler: SinkHandler = accept): Promise<HttpSink> {
  let current = handler;
  let connections = 0;
  let concurrent = 0;
  let maxConcurrent = 0;
  const requests: SinkRequest[] = [];
  const server = createServer((req, res) => {
    const atMs = performance.now();
    concurrent++;
    maxConcurrent = Math.max(maxConcurrent, concurrent);
    let open = true;
    const done = (): void => {
      if (open) concurrent--;
      open = false;
    };
    res.on('finish', done);
    res.on('close', done);
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request: SinkRequest = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        rawHeaders: req.rawHeaders,
        body: Buffer.concat(chunks).toString('utf8'),
        atMs,
      };
      requests.push(request);
      void Promise.resolve(current(request, res)).catch(() => res.destroy());
    });
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    connections: () => connections,
    concurrent: () => concurrent,
    maxConcurrent: () => maxConcurrent,
    handle: (next) => {
      current = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
