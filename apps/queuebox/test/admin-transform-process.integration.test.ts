import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { e2eServices } from './e2e-services.js';
import { assertBuilt, serveQueueBox, type QueueBoxProcess } from './process.js';
import { suiteScratch } from './scratch.js';
import { openDatabase } from './scratch-opens.js';
import { httpSink } from './yaml-blocks.js';

const { ready, pgUrl } = await e2eServices('app: admin transform test in the real process');

const CONFIG = `
destinations:
${httpSink('http://127.0.0.1:9')}
routes:
  - topicPattern: "**"
    destination: sink
admin:
  enabled: true
  insecure: true
`;

/** Linux's USER_HZ, the unit of /proc/<pid>/stat times. */
const CLOCK_TICKS = 100;

const TIMEOUT_REASON = 'Expression evaluation timeout after 1000 ms: Check for infinite loop.';
const MEMORY_REASON = /^Expression evaluation ran out of memory \(limit 64 MB\)/;

/**
 * The built service (dist/main.js) runs the admin transform test in its worker thread: the
 * expression that used to block the whole process for seconds is stopped at its limit while the
 * process keeps answering.
 */
describe.skipIf(!ready)('admin transform test in the real process', () => {
  const scratch = suiteScratch();
  let qb: QueueBoxProcess;
  let base: string;

  beforeAll(async () => {
    assertBuilt();
    const db = await openDatabase(scratch, pgUrl);
    ({ qb, base } = await serveQueueBox(db, CONFIG, []));
  });

  // Runs before the scratch drops the database (after hooks run last registered first).
  afterAll(async () => {
    if (qb) {
      qb.child.kill('SIGTERM');
      expect((await qb.exited).code).toBe(0);
    }
  });

  const test = async (expression: string, timeoutMs = 1000) => {
    const started = performance.now();
    const res = await fetch(`${base}/admin/transform/test`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ expression, payload: { n: 2 }, timeoutMs }),
    });
    const body = (await res.json()) as { success: boolean; error: string; result?: unknown };
    return { status: res.status, body, ms: performance.now() - started };
  };

  /** CPU time the service process itself has used (user + system, its threads, not its children). */
  const serviceCpuMs = (): number => {
    const stat = readFileSync(`/proc/${qb.child.pid}/stat`, 'utf8');
    // The fields after the command name, which sits in parentheses: utime and stime are 14 and 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
  };

  /** Liveness answer times, probed every 50 ms until `until` settles. */
  const probeLiveness = async (until: Promise<unknown>): Promise<number[]> => {
    let done = false;
    void until.finally(() => (done = true));
    const times: number[] = [];
    while (!done) {
      const started = performance.now();
      const res = await fetch(`${base}/health/live`);
      expect(res.status).toBe(200);
      times.push(performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return times;
  };

  /**
   * The service went on while the bomb ran elsewhere. Wall times on a busy 2-core machine say
   * little on their own (a liveness answer took 230-280 ms at load 30 with nothing blocked), so
   * this compares within the run and counts CPU: evaluated in the service, the bomb held its
   * event loop for most of the evaluation (one native step of `$string([1..1e7])` ran 4.25 s),
   * so a probe sent meanwhile waited about as long as the bomb, and the service burnt seconds of
   * CPU; in the worker, each probe answers in a fraction of the bomb's time and the service
   * itself spends tens of ms (70-80 measured), whatever the load.
   */
  const expectServiceNotBlocked = (bomb: { ms: number; liveness: number[]; cpuMs: number }) => {
    expect(Math.max(...bomb.liveness)).toBeLessThan(bomb.ms / 2);
    expect(bomb.cpuMs).toBeLessThan(500);
  };

  it('answers a normal expression from the worker', async () => {
    expect(await test('n * 21')).toMatchObject({
      status: 200,
      body: { success: true, result: 42 },
    });
  });

  /** An expression past its limit: refused with the limit's reason, timed, probed meanwhile. */
  const stopsAtItsLimit = async (expression: string) => {
    const cpuBefore = serviceCpuMs();
    const bomb = test(expression);
    const liveness = await probeLiveness(bomb);
    const { status, body, ms } = await bomb;
    const cpuMs = serviceCpuMs() - cpuBefore;
    expect(status).toBe(400);
    expect(body.success).toBe(false);
    expect(body.error === TIMEOUT_REASON || MEMORY_REASON.test(body.error)).toBe(true);
    return { ms, liveness, cpuMs };
  };

  it('stops $string([1..1e7]) within its limit while /health/live keeps answering at once', async () => {
    const { ms, liveness, cpuMs } = await stopsAtItsLimit('$string([1..1e7])');
    expect(ms).toBeLessThan(1000 + 700);
    expect(liveness.length).toBeGreaterThan(0);
    expectServiceNotBlocked({ ms, liveness, cpuMs });
    // The replacement worker is warm: the next ordinary request is quick again.
    const next = await test('n + 1');
    expect(next).toMatchObject({ status: 200, body: { success: true, result: 3 } });
  });

  it('ends a memory bomb with an error, not a crash, and keeps serving', async () => {
    expectServiceNotBlocked(
      await stopsAtItsLimit('$pad("", 200000000, "x") & $pad("", 200000000, "y")'),
    );
    expect(await test('n')).toMatchObject({ status: 200, body: { success: true, result: 2 } });
    expect(qb.child.exitCode).toBeNull();
  });
});
