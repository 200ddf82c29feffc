import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { freePort, LOOPBACK, portIsFree } from './ports.js';

describe('freePort', () => {
  it('never hands out the same port twice in one process', async () => {
    const ports: number[] = [];
    for (let i = 0; i < 300; i++) ports.push(await freePort());
    expect(new Set(ports).size).toBe(ports.length);
    expect(ports.every((port) => port > 1024 && port < 65536)).toBe(true);
  });

  it('hands out a port a server can bind, which portIsFree then reports taken', async () => {
    const port = await freePort();
    expect(await portIsFree(port)).toBe(true);
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(port, LOOPBACK, resolve));
    try {
      expect(await portIsFree(port)).toBe(false);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
