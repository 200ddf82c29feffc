import { createServer, type AddressInfo } from 'node:net';

/**
 * A "database" that only counts the connections it is offered, and drops them: a command or a
 * start that must not touch the database leaves its count where it was, an observation rather
 * than a promise.
 */
export interface CountingDatabase {
  /** A JDBC URL that points at it. */
  readonly url: string;
  count(): number;
  close(): Promise<void>;
}

export async function startCountingDatabase(): Promise<CountingDatabase> {
  let count = 0;
  const server = createServer((socket) => {
    count++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `jdbc:postgresql://127.0.0.1:${port}/queuebox`,
    count: () => count,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
