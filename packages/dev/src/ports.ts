import { createServer } from 'node:net';

export const LOOPBACK = '127.0.0.1';

// The OS may hand the same ephemeral port to two bind(0) calls in a row once the first listener
// has closed; a caller asking twice wants two ports, so a port is handed out once per process.
const handedOut = new Set<number>();

/** A port the OS hands out on 127.0.0.1 (an ephemeral one, so never 5432), never the same twice in one process. */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = await ephemeralPort();
    if (!handedOut.has(port)) {
      handedOut.add(port);
      return port;
    }
  }
}

function ephemeralPort(): Promise<number> {
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
