import { freePort as ephemeralPort, portIsFree } from '@queuebox/dev';

// Inside a vitest worker, ports come from a stretch of that worker's own, below the kernel's
// ephemeral range (32768-60999 by default): between freePort() and the test's listen, no other
// worker's freePort, no bind(0) and no outgoing connection of any process takes the same port.
// Child processes a test starts (QueueBox, `queuebox dev`) pick theirs from the ephemeral range.
const STRETCH_BASE = 20_000;
const STRETCH_SIZE = 500;
const STRETCHES = 25;
const handedOut = new Set<number>();

/**
 * A TCP port free on 127.0.0.1 a moment ago and not handed out before in this process, for
 * servers a test starts itself. Outside a vitest worker: one the OS picks.
 */
export async function freePort(): Promise<number> {
  const stretch = workerPortStretch();
  if (stretch === null) return ephemeralPort();
  const { start, end } = stretch;
  // A random first port: a later test file in a worker of the same id starts elsewhere.
  const offset = Math.floor(Math.random() * STRETCH_SIZE);
  for (let i = 0; i < STRETCH_SIZE; i++) {
    const port = start + ((offset + i) % STRETCH_SIZE);
    if (handedOut.has(port) || !(await portIsFree(port))) continue;
    handedOut.add(port);
    return port;
  }
  throw new Error(`No free port is left in ${start}-${end} for this test worker.`);
}

/** This vitest worker's ports, first and last; null outside a vitest worker. */
export function workerPortStretch(): { readonly start: number; readonly end: number } | null {
  const pool = Number(process.env['VITEST_POOL_ID']);
  if (!Number.isInteger(pool) || pool < 1) return null;
  const start = STRETCH_BASE + ((pool - 1) % STRETCHES) * STRETCH_SIZE;
  return { start, end: start + STRETCH_SIZE - 1 };
}
