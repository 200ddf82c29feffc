import { createServer } from 'node:net';

export const LOOPBACK = '127.0.0.1';

/** A port the OS hands out on 127.0.0.1 (an ephemeral one, so never 5432). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, LOOPBACK, () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Whether a listener can bind `port` on `host` right now (false on EADDRINUSE or EACCES). */
export function portIsFree(port: number, host = LOOPBACK): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolve(true)));
  });
}
