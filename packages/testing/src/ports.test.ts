import { createServer, type Server } from 'node:net';
import { portIsFree } from '@queuebox/dev';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort } from './ports.js';

const pool = Number(process.env['VITEST_POOL_ID']);
const start = 20_000 + ((pool - 1) % 25) * 500;
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

  it("hands each port out once, from this worker's stretch below the kernel's ephemeral range", async () => {
    expect(Number.isInteger(pool) && pool > 0).toBe(true);
    const ports: number[] = [];
    for (let i = 0; i < 200; i++) ports.push(await take());
    expect(new Set(ports).size).toBe(ports.length);
    for (const port of ports) {
      expect(port).toBeGreaterThanOrEqual(start);
      expect(port).toBeLessThan(start + 500);
    }
    // A handed-out port can be listened on.
    held.push(await listen(ports[0]!));
  });

  it('passes over ports another listener holds, and says so when none is left', async () => {
    // Every port of the stretch that was not given before is held by a listener, but one.
    const open: number[] = [];
    for (let port = start; port < start + 500; port++)
      if (!given.has(port) && (await portIsFree(port))) open.push(port);
    const spared = open.pop()!;
    for (const port of open) held.push(await listen(port));
    expect(await take()).toBe(spared);
    await expect(freePort()).rejects.toThrow(
      /No free port is left in \d+-\d+ for this test worker/,
    );
  });
});
