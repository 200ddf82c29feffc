import { serve, type Http2Bindings, type HttpBindings, type ServerType } from '@hono/node-server';
import type { Server } from 'node:http';
import type { Hono } from 'hono';
import { dotSegmentNotFound, hasDotSegment } from './dot-segments.js';

/** A started HTTP server that can be closed with a grace period and a hard bound. */
export interface RunningServer {
  readonly port: number;
  close(graceMs: number, timeoutMs: number): Promise<void>;
}

export async function startServer(
  app: Hono,
  port: number,
  hostname = '0.0.0.0',
): Promise<RunningServer> {
  // Checked on the raw request target: the adapter normalizes dot segments away before routing.
  const fetch = (request: Request, env: HttpBindings | Http2Bindings) =>
    hasDotSegment(env.incoming.url ?? '') ? dotSegmentNotFound() : app.fetch(request, env);
  const server = await new Promise<ServerType>((resolve, reject) => {
    const started = serve({ fetch, port, hostname }, () => resolve(started));
    started.once('error', reject);
  });
  const http = server as Server;
  // Keep-alive sockets from load balancers must not outlive the drain.
  http.keepAliveTimeout = 5000;
  const address = http.address();
  const bound = typeof address === 'object' && address !== null ? address.port : port;
  return {
    port: bound,
    close: (graceMs, timeoutMs) => closeServer(http, graceMs, timeoutMs),
  };
}

function closeServer(server: Server, graceMs: number, timeoutMs: number): Promise<void> {
  return new Promise((resolve) => {
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(grace);
      clearTimeout(hard);
      resolve();
    };
    server.close(() => finish());
    server.closeIdleConnections();
    // Past the grace period, cut the connections still open; past the timeout, stop waiting.
    const grace = setTimeout(() => server.closeAllConnections(), Math.min(graceMs, timeoutMs));
    const hard = setTimeout(finish, timeoutMs);
  });
}
