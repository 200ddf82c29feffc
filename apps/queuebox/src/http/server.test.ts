import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMetricsRegistry } from '../observability/metrics.js';
import { buildHttpApps } from './apps.js';
import { RequestDrain } from './drain.js';
import { startServer, type RunningServer } from './server.js';

/**
 * The real servers, spoken to over a raw TCP socket: an HTTP client (fetch, curl without
 * --path-as-is) would normalize the dot segments itself and never send what an attacker sends.
 */
function send(
  port: number,
  target: string,
  method = 'GET',
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(
        `${method} ${target} HTTP/1.1\r\nHost: localhost\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`,
      );
    });
    let raw = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => (raw += chunk));
    socket.on('error', reject);
    socket.on('end', () => {
      const [head = '', body = ''] = raw.split('\r\n\r\n');
      resolve({ status: Number(head.split(' ')[1]), body });
    });
  });
}

const TRAVERSALS = [
  '/inbox/%2e%2e/metrics',
  '/inbox/%2E%2E/metrics',
  '/inbox/%2e%2E/health',
  '/inbox/.%2e/health/live',
  '/inbox/%2e./health/ready',
  '/inbox/../metrics',
  '/inbox/orders/%2e%2e/%2e%2e/metrics',
  '/inbox/%2e/%2e%2e/metrics',
  '/inbox/%5c..%5cmetrics',
  '/inbox/..%2fmetrics',
  '/inbox/%2e%2e/admin/replay',
  'http://localhost/inbox/%2e%2e/metrics',
];

function serve(managementPort: boolean) {
  return buildHttpApps({
    managementPort: managementPort ? 1 : null,
    maxBodyBytes: 1024,
    registry: createMetricsRegistry('9.9.9', Date.now()),
    health: [{ name: 'database', check: () => true }],
    drain: new RequestDrain(),
    dataRoutes: (app) => {
      app.post('/inbox/orders', (c) => c.text('inbox'));
      app.post('/inbox/orders.v1', (c) => c.text('inbox v1'));
    },
    operatorRoutes: (app) => app.post('/admin/replay', (c) => c.text('admin')),
  });
}

describe('dot segments on the real servers', () => {
  const servers: RunningServer[] = [];
  let shared: number;
  let data: number;
  let management: number;

  beforeAll(async () => {
    const one = serve(false);
    const two = serve(true);
    for (const app of [one.data, two.data, two.management!]) {
      servers.push(await startServer(app, 0, '127.0.0.1'));
    }
    [shared, data, management] = servers.map((s) => s.port) as [number, number, number];
  });

  afterAll(async () => {
    await Promise.all(servers.map((s) => s.close(100, 1000)));
  });

  it('answers 404 to a target with a dot segment, on every port, before any route', async () => {
    for (const port of [shared, data, management]) {
      for (const target of TRAVERSALS) {
        for (const method of ['GET', 'POST']) {
          const answer = await send(port, target, method);
          expect({ port, target, method, ...answer }).toEqual({
            port,
            target,
            method,
            status: 404,
            body: '404 Not Found',
          });
        }
      }
    }
  });

  it('still routes the same paths without the dot segments, and dots inside a segment', async () => {
    expect(await send(shared, '/metrics')).toMatchObject({ status: 200 });
    expect(await send(shared, '/health/live')).toMatchObject({ status: 200 });
    expect(await send(shared, '/admin/replay', 'POST')).toEqual({ status: 200, body: 'admin' });
    expect(await send(shared, '/inbox/orders', 'POST')).toEqual({ status: 200, body: 'inbox' });
    expect(await send(data, '/inbox/orders.v1', 'POST')).toEqual({ status: 200, body: 'inbox v1' });
    expect(await send(management, '/metrics?from=/../x')).toMatchObject({ status: 200 });
  });
});
