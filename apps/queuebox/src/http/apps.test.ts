import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createMetricsRegistry } from '../observability/metrics.js';
import { buildHttpApps, type HttpAppsOptions } from './apps.js';
import { RequestDrain } from './drain.js';

function apps(overrides: Partial<HttpAppsOptions> = {}) {
  return buildHttpApps({
    managementPort: null,
    maxBodyBytes: 1024,
    registry: createMetricsRegistry('9.9.9', Date.now() - 2000),
    health: [{ name: 'database', check: () => true }],
    drain: new RequestDrain(),
    ...overrides,
  });
}

describe('HTTP surface without a management port', () => {
  it('answers the root with plain text', async () => {
    const res = await apps().data.request('/');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain');
    expect(await res.text()).toBe('QueueBox is running!');
  });

  it('answers liveness without checking anything', async () => {
    const res = await apps({ health: [{ name: 'database', check: () => false }] }).data.request(
      '/health/live',
    );
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      status: 'healthy',
      components: { process: { status: 'up' } },
    });
  });

  it('answers readiness and its alias with the components in order', async () => {
    const health = [
      { name: 'database', check: () => true },
      { name: 'outbox-capture', advisory: true, check: () => false },
      { name: 'outbox-poller', check: () => Promise.resolve(true) },
    ];
    for (const path of ['/health/ready', '/health']) {
      const res = await apps({ health }).data.request(path);
      expect(res.status).toBe(200);
      const text = await res.text();
      expect(text).toBe(
        '{"status":"healthy","components":{"database":{"status":"up"},"outbox-capture":{"status":"down"},"outbox-poller":{"status":"up"}}}',
      );
    }
  });

  it('answers 503 when a deciding component is down or throws', async () => {
    const health = [
      { name: 'database', check: () => Promise.reject(new Error('gone')) },
      { name: 'outbox-poller', check: () => true },
    ];
    const res = await apps({ health }).data.request('/health/ready');
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({
      status: 'unhealthy',
      components: { database: { status: 'down' }, 'outbox-poller': { status: 'up' } },
    });
  });

  it('counts a check that does not answer in 3 s as down', async () => {
    const health = [{ name: 'database', check: () => new Promise<boolean>(() => undefined) }];
    const started = Date.now();
    const res = await apps({ health }).data.request('/health/ready');
    expect(res.status).toBe(503);
    expect(Date.now() - started).toBeGreaterThanOrEqual(2900);
  });

  it('serves the metrics with the info metric and the uptime', async () => {
    const res = await apps().data.request('/metrics');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    const text = await res.text();
    expect(text).toContain('queuebox{version="9.9.9"} 1');
    const uptime = /^queuebox_uptime_seconds (\S+)$/m.exec(text);
    expect(Number(uptime?.[1])).toBeGreaterThanOrEqual(2);
    expect(text).not.toMatch(/process_|nodejs_/);
  });

  it('refuses a declared body over the cap with 413 on any data-port route', async () => {
    const res = await apps().data.request('/anything', {
      method: 'POST',
      headers: { 'content-length': '1025' },
      body: 'x'.repeat(1025),
    });
    expect(res.status).toBe(413);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(await res.text()).toBe('{"error":"Request body exceeds 1024 bytes"}');
  });

  it('answers 404 for unknown paths and 503 while draining', async () => {
    const drain = new RequestDrain();
    const { data } = apps({ drain });
    expect((await data.request('/nope')).status).toBe(404);
    await drain.drain(10);
    const res = await data.request('/');
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({ error: 'QueueBox is shutting down' });
  });
});

describe('HTTP surface with a management port', () => {
  it('moves health and metrics to the management port; the data port answers 404 for them', async () => {
    const { data, management } = apps({ managementPort: 9091 });
    expect(management).not.toBeNull();
    for (const path of ['/health', '/health/live', '/health/ready', '/metrics']) {
      expect((await data.request(path)).status).toBe(404);
      expect((await management!.request(path)).status).toBe(200);
    }
    expect((await data.request('/')).status).toBe(200);
    expect((await management!.request('/')).status).toBe(404);
  });

  it('keeps the management port answering while the data port drains', async () => {
    const drain = new RequestDrain();
    const { management } = apps({ managementPort: 9091, drain });
    await drain.drain(10);
    expect((await management!.request('/health/live')).status).toBe(200);
  });
});

describe('metrics registry', () => {
  it('registers only the QueueBox families', async () => {
    const registry: Registry = createMetricsRegistry('1.0.0', Date.now());
    const names = (await registry.getMetricsAsJSON()).map((m) => m.name).sort();
    expect(names).toEqual(['queuebox', 'queuebox_uptime_seconds']);
  });
});
