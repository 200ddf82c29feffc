import { createServer, type Server } from 'node:net';
import { portIsFree } from '@queuebox/dev';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort, workerPortStretch } from './ports.js';

const listen = (port: number) =>
  new Promise<Server>((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });

describe('freePort in a test worker', () => {
  const held: Server[] = [];
  // Every port this file was given: freePort never gives one again.
  const given = new Set<number>();
  const take = async () => {
    const port = await freePort();
    given.add(port);
    return port;
  };
  afterEach(async () => {
    await Promise.all(held.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
  });

  const stretch = workerPortStretch();
  const { start, end } = stretch ?? { start: 0, end: 0 };

  it("hands each port out once, from this worker's stretch below the kernel's ephemeral range", async () => {
    expect(stretch).not.toBeNull();
    expect(end - start + 1).toBe(500);
    expect(end).toBeLessThan(32_768);
    const ports: number[] = [];
    for (let i = 0; i < 200; i++) ports.push(await take());
    expect(new Set(ports).size).toBe(ports.length);
    for (const port of ports) {
      expect(port).toBeGreaterThanOrEqual(start);
      expect(port).toBeLessThanOrEqual(end);
    }
    // A handed-out port can be listened on.
    held.push(await listen(ports[0]!));
  });

  it('passes over ports another listener holds, and says so when none is left', async () => {
    // Every port of the stretch that was not given before is held by a listener, but one.
    const open: number[] = [];
    for (let port = start; port <= end; port++)
      if (!given.has(port) && (await portIsFree(port))) open.push(port);
    const spared = open.pop()!;
    for (const port of open) held.push(await listen(port));
    expect(await take()).toBe(spared);
    await expect(freePort()).rejects.toThrow(
      /No free port is left in \d+-\d+ for this test worker/,
    );
  });
});
