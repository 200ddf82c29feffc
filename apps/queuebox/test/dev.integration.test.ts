import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import { freePort } from '@queuebox/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, runQueueBox, startQueueBox, type QueueBoxProcess } from './process.js';

/**
 * `queuebox dev` as a newcomer runs it: the built process in a working directory of its own (so
 * its `.queuebox/postgres` is private), on the embedded PostgreSQL, with the demo configuration.
 */
const READY = 'Press Ctrl-C to stop';
const START_MS = 60_000;

interface Printed {
  readonly pgUrl: string;
  readonly stripeUrl: string;
  readonly stripeBody: string;
  readonly postmasterPid: number;
}

function printed(output: string): Printed {
  const pgUrl = /PostgreSQL URL for your application \(write outbox rows here\): (\S+)/.exec(
    output,
  )?.[1];
  const curl =
    /curl -X POST (\S+\/inbox\/stripe) -H 'Content-Type: application\/json' -d '([^']+)'/.exec(
      output,
    );
  const pid = /The embedded PostgreSQL [\d.]+ is running on port \d+ \(pid (\d+)/.exec(output)?.[1];
  if (
    pgUrl === undefined ||
    curl?.[1] === undefined ||
    curl[2] === undefined ||
    pid === undefined
  ) {
    throw new Error(`The start banner is incomplete:\n${output}`);
  }
  return { pgUrl, stripeUrl: curl[1], stripeBody: curl[2], postmasterPid: Number(pid) };
}

/** Every process whose command line names the data directory, or whose parent is `pid`. */
function leftovers(dataDir: string, pid: number): string[] {
  const found: string[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ');
      const parent = readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1]?.split(' ')[1];
      if (cmdline.includes(dataDir) || Number(entry) === pid || Number(parent) === pid)
        found.push(`${entry}: ${cmdline}`);
    } catch {
      // The process ended while we looked.
    }
  }
  return found;
}

/** A private working directory the server's user (`postgres` when the tests run as root) can enter. */
function workDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'queuebox-dev-'));
  chmodSync(dir, 0o755);
  return dir;
}

/**
 * A checkout inside a directory of mode 0700, as root's home is: the repository's built files
 * linked (hard links, a copy across file systems) into `<private>/checkout`, so the embedded
 * PostgreSQL's programs in node_modules and the default `.queuebox/postgres` both lie under a
 * directory the `postgres` user cannot enter.
 */
function privateCheckout(): { home: string; checkout: string } {
  const repo = fileURLToPath(new URL('../../..', import.meta.url));
  const home = mkdtempSync(join(tmpdir(), 'queuebox-dev-home-'));
  chmodSync(home, 0o700);
  const checkout = join(home, 'checkout');
  mkdirSync(checkout);
  const parts = ['package.json', 'pnpm-workspace.yaml', 'node_modules', 'packages', 'apps'];
  for (const part of parts) {
    const from = join(repo, part);
    const linked = spawnSync('cp', ['-al', from, checkout]);
    if (linked.status !== 0 && spawnSync('cp', ['-a', from, checkout]).status !== 0)
      throw new Error(`Could not copy ${from} into ${checkout}: ${String(linked.stderr)}`);
  }
  return { home, checkout };
}

const isRoot = process.getuid?.() === 0;

/** A one-connection client on the printed URL, for the length of `use`. */
async function withSql<T>(url: string, use: (sql: postgres.Sql) => Promise<T>): Promise<T> {
  const sql = postgres(url, { max: 1, onnotice: () => undefined });
  try {
    return await use(sql);
  } finally {
    await sql.end();
  }
}

describe('queuebox dev', () => {
  const dirs: string[] = [];
  let httpPort: number;
  let cwd: string;
  let dataDir: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    assertBuilt();
    cwd = newDir();
    dataDir = join(cwd, '.queuebox', 'postgres');
    httpPort = await freePort();
    env = { QUEUEBOX_SERVER_HTTPPORT: String(httpPort) };
  });
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });
  /** A working directory of this test's own, removed with the others at the end. */
  const newDir = (): string => {
    const dir = workDir();
    dirs.push(dir);
    return dir;
  };
  /** `queuebox dev` in a new directory while another listener holds a port. */
  const devBesideTakenPort = async (
    args: (port: number) => { argv: string[]; env: Record<string, string> },
  ) => {
    const blocker = await listen();
    try {
      const port = (blocker.address() as { port: number }).port;
      const { argv, env: vars } = args(port);
      return { port, result: await runQueueBox(argv, vars, { cwd: newDir() }) };
    } finally {
      blocker.close();
    }
  };

  it('delivers a webhook and an outbox row, stops clean, and keeps the data for the next start', async () => {
    const first = startQueueBox(['dev'], env, { cwd });
    let info: Printed;
    try {
      await first.waitFor(READY, START_MS);
      info = printed(first.output());
      expect(new URL(info.pgUrl).port).not.toBe('5432');
      expect(first.output()).toContain(`Inbox sources (post webhooks here):`);
      expect(first.output()).toContain(
        `Health: http://127.0.0.1:${httpPort}/health   Metrics: http://127.0.0.1:${httpPort}/metrics`,
      );
      expect((await fetch(`http://127.0.0.1:${httpPort}/health`)).status).toBe(200);

      // The curl line, as printed: its body has an id and a type that the `payment.*` route takes.
      expect(JSON.parse(info.stripeBody)).toMatchObject({ type: 'payment.created' });
      const posted = await fetch(info.stripeUrl, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: info.stripeBody,
      });
      expect(posted.ok).toBe(true);

      await withSql(
        info.pgUrl,
        (sql) =>
          sql`INSERT INTO outbox (topic, payload) VALUES ('order.created', ${sql.json({ orderId: 42 })})`,
      );
      await first.waitFor('Demo receiver got POST /webhook topic=order.created', 15_000);
      await first.waitFor('Demo receiver got POST /webhook topic=payment.created', 15_000);
      // Both payloads arrive as jsonb holds them (its own text, with a space after each colon).
      expect(first.output()).toContain('{"orderId": 42}');
      const sent = JSON.parse(info.stripeBody) as { id: string; type: string };
      expect(first.output()).toContain(`{"id": "${sent.id}", "type": "${sent.type}"}`);
    } finally {
      first.child.kill('SIGTERM');
    }
    const stopped = await first.exited;
    expect(stopped.code).toBe(0);
    const out = stopped.stdout;
    // QueueBox drains first, then PostgreSQL stops.
    expect(out.indexOf('Shutdown complete')).toBeGreaterThan(-1);
    expect(out.indexOf('The embedded PostgreSQL stopped')).toBeGreaterThan(
      out.indexOf('Shutdown complete'),
    );
    expect(leftovers(dataDir, info.postmasterPid)).toEqual([]);

    const second = startQueueBox(['dev'], env, { cwd });
    let again: Printed;
    try {
      await second.waitFor(READY, START_MS);
      again = printed(second.output());
      expect(second.output()).not.toContain('Created a PostgreSQL');
      expect(again.pgUrl).toBe(info.pgUrl); // the free previous port is reused, so the URL holds
      await withSql(again.pgUrl, async (sql) => {
        const outbox = await sql<
          { topic: string; state: string }[]
        >`SELECT topic, state FROM outbox ORDER BY topic`;
        expect(outbox).toEqual([
          { topic: 'order.created', state: 'sent' },
          { topic: 'payment.created', state: 'sent' },
        ]);
        const inbox = await sql<
          { source: string; idempotency_key: string }[]
        >`SELECT source, idempotency_key FROM inbox`;
        expect(inbox).toEqual([
          { source: 'stripe', idempotency_key: (JSON.parse(info.stripeBody) as { id: string }).id },
        ]);
      });

      // While it runs, its data directory is refused to a second instance, by name.
      const held = await runQueueBox(
        ['dev'],
        { QUEUEBOX_SERVER_HTTPPORT: String(await freePort()) },
        { cwd },
      );
      expect(held.code).toBe(1);
      expect(held.stdout).toContain(
        `The data directory ${dataDir} is in use by a running PostgreSQL (pid ${again.postmasterPid})`,
      );
    } finally {
      second.child.kill('SIGINT');
    }
    expect((await second.exited).code).toBe(0);
    expect(leftovers(dataDir, again.postmasterPid)).toEqual([]);
  });

  it('runs from a checkout in a mode-0700 directory, twice, keeping the data and leaving no server', async () => {
    const { home, checkout } = privateCheckout();
    dirs.push(home);
    const main = join(checkout, 'apps', 'queuebox', 'dist', 'main.js');
    const run = (signal: NodeJS.Signals) => async (check: (output: string) => Promise<void>) => {
      const qb = startQueueBox(['dev'], env, { cwd: checkout, main });
      let pid: number;
      try {
        await qb.waitFor(READY, START_MS);
        const output = qb.output();
        pid = printed(output).postmasterPid;
        await check(output);
      } finally {
        qb.child.kill(signal);
      }
      const stopped = await qb.exited;
      expect(stopped.code).toBe(0);
      return { output: stopped.stdout, pid };
    };
    const bannerDataDir = (output: string) =>
      /embedded PostgreSQL [\d.]+ \(data in ([^,)]+)/.exec(output)?.[1] ?? '';

    let info: Printed | undefined;
    const first = await run('SIGTERM')(async (output) => {
      info = printed(output);
      await withSql(
        info.pgUrl,
        (sql) =>
          sql`INSERT INTO outbox (topic, payload) VALUES ('order.created', ${sql.json({ orderId: 7 })})`,
      );
    });
    const dataDir = bannerDataDir(first.output);
    expect(first.output).toContain('Created a PostgreSQL cluster');
    if (isRoot) {
      // Neither the data nor the programs the server runs may sit under the private directory.
      expect(first.output).toContain(
        `(data in ${dataDir}, kept there because the user 'postgres' cannot enter ${home})`,
      );
      expect(first.output).toContain(
        `The embedded PostgreSQL keeps its data in ${dataDir}, not in ${join(checkout, '.queuebox', 'postgres')}`,
      );
      expect(dataDir.startsWith(home)).toBe(false);
      const programs = /programs in (\S+)\)/.exec(first.output)?.[1] ?? '';
      expect(programs.startsWith(home)).toBe(false);
      expect(statSync(dataDir).uid).not.toBe(0);
      dirs.push(dirname(dataDir));
    } else {
      expect(dataDir).toBe(join(checkout, '.queuebox', 'postgres'));
    }
    expect(leftovers(dataDir, first.pid)).toEqual([]);

    const second = await run('SIGINT')(async (output) => {
      expect(bannerDataDir(output)).toBe(dataDir);
      if (isRoot) {
        // The server runs the programs from the reachable copy, not from node_modules.
        const exe = readlinkSync(`/proc/${printed(output).postmasterPid}/exe`);
        expect(exe.startsWith(home)).toBe(false);
      }
      await withSql(printed(output).pgUrl, async (sql) => {
        expect(await sql`SELECT topic FROM outbox`).toEqual([{ topic: 'order.created' }]);
      });
    });
    expect(second.output).not.toContain('Created a PostgreSQL cluster');
    expect(leftovers(dataDir, second.pid)).toEqual([]);
  });

  it('names a PostgreSQL port that is in use', async () => {
    const { port, result } = await devBesideTakenPort((taken) => ({
      argv: ['dev', '--postgres-port', String(taken)],
      env,
    }));
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(
      `Port ${port} on 127.0.0.1 is in use, so the embedded PostgreSQL cannot listen there.`,
    );
  });

  it('names an HTTP port that is in use before PostgreSQL starts', async () => {
    const { port, result } = await devBesideTakenPort((taken) => ({
      argv: ['dev'],
      env: { QUEUEBOX_SERVER_HTTPPORT: String(taken) },
    }));
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(`Port ${port} (server.httpPort) on 127.0.0.1 is in use`);
    expect(result.stdout).not.toContain('The embedded PostgreSQL');
  });

  it('runs a given configuration with its database settings replaced by the embedded database', async () => {
    const dir = newDir();
    writeFileSync(
      join(dir, 'mine.yml'),
      `
database:
  url: jdbc:postgresql://127.0.0.1:9/nowhere
  username: nobody
  password: wrong
destinations:
  receiver:
    type: http
    baseUrl: \${RECEIVER_URL}
routes:
  - topicPattern: "**"
    destination: receiver
sources:
  shop:
    path: /shop
    idempotencyKeyPath: $.orderId
    eventTypePath: $.kind
`,
    );
    const qb: QueueBoxProcess = startQueueBox(
      ['dev', '--config', 'mine.yml', '--data-dir', 'db'],
      env,
      { cwd: dir },
    );
    try {
      await qb.waitFor(READY, START_MS);
      const curl =
        /curl -X POST (\S+\/inbox\/shop) -H 'Content-Type: application\/json' -d '([^']+)'/.exec(
          qb.output(),
        );
      expect(JSON.parse(curl![2]!)).toMatchObject({ kind: 'example' });
      expect(qb.output()).toContain(`data in ${join(dir, 'db')}`);
      const posted = await fetch(curl![1]!, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: curl![2]!,
      });
      expect(posted.ok).toBe(true);
      await qb.waitFor('Demo receiver got POST / topic=example', 15_000);
    } finally {
      qb.child.kill('SIGTERM');
    }
    expect((await qb.exited).code).toBe(0);
  });

  it('refuses a --config file that does not exist, and bad arguments', async () => {
    const dir = newDir();
    const missing = await runQueueBox(['dev', '--config', 'nope.yml'], env, { cwd: dir });
    expect(missing.code).toBe(1);
    expect(missing.stdout).toContain(
      `The configuration file ${join(dir, 'nope.yml')} given with --config does not exist.`,
    );
    const bad = await runQueueBox(['dev', '--postgres-port', 'x'], env, { cwd: dir });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--postgres-port must be a port number (1-65535), not 'x'.");
  });
});

function listen(): Promise<Server> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => resolve(server));
  });
}
