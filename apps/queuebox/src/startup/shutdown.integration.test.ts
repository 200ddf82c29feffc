import { freePort } from '@queuebox/testing';
import { silentLogger } from '@queuebox/core';
import { describe, expect, it } from 'vitest';
import { createMetricsRegistry } from '../observability/metrics.js';
import { buildHttpApps } from '../http/apps.js';
import { RequestDrain } from '../http/drain.js';
import { startServer } from '../http/server.js';
import { ShutdownSequence } from './shutdown.js';

describe('graceful shutdown of the HTTP servers', () => {
  it('lets a slow request finish, refuses new ones with 503, then closes', async () => {
    const drain = new RequestDrain();
    const { data } = buildHttpApps({
      managementPort: null,
      maxBodyBytes: 1024,
      registry: createMetricsRegistry('1', Date.now()),
      health: [],
      drain,
      dataRoutes: (app) =>
        app.get('/slow', async (c) => {
          await new Promise((resolve) => setTimeout(resolve, 700));
          return c.text('done');
        }),
    });
    const server = await startServer(data, await freePort(), '127.0.0.1');
    const shutdown = new ShutdownSequence(silentLogger);
    shutdown.http(drain, [server], 1000);
    const stopped: string[] = [];
    shutdown.service('poller', () => {
      stopped.push('poller');
    });
    shutdown.resource('pool', () => {
      stopped.push('pool');
    });
    shutdown.service('failing', () => {
      throw new Error('boom');
    });

    const base = `http://127.0.0.1:${server.port}`;
    const slow = fetch(`${base}/slow`);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const stopping = shutdown.run();
    const during = await fetch(`${base}/`);
    expect(during.status).toBe(503);
    expect(await during.json()).toEqual({ error: 'QueueBox is shutting down' });

    const res = await slow;
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('done');
    await stopping;
    // A failing stop is isolated: the resource after it still closed.
    expect(stopped).toEqual(['poller', 'pool']);
    await expect(fetch(`${base}/`)).rejects.toThrow();
  });
});
