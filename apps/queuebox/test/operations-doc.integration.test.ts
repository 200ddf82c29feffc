import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFreshDatabase, freePort, requireService } from '@queuebox/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrations } from '@queuebox/postgres';
import { databaseAndSink } from './database-and-sink.js';
import { MAIN, assertBuilt } from './process.js';
import { eventually } from './service.js';
import { HOOKS_SOURCE, sinkRoute } from './yaml-pieces.js';

/** What `migrate` prints on an empty database: every bundled version. */
const APPLIED_ALL = `Applied ${migrations.length} migration(s): ${migrations.map((m) => m.version).join(', ')}.`;

/**
 * docs/operations.md, executed: every `sh` block runs in bash with `queuebox` the built CLI and
 * `QB` a QueueBox the doc's own start block started; every `sql` block runs on that database
 * with rows it acts on; the `yaml` block is part of the configuration the service runs; the
 * `docker` blocks are only checked to be marked as not run. Each block carries a
 * `<!-- ops: <name> -->` marker, and a block this test does not know fails it.
 */
const pg = await requireService('postgres', 'app: the operations guide');
const pgUrl = pg.available ? pg.url : '';

const DOCS = new URL('../../../docs/', import.meta.url);
const read = (name: string) => readFileSync(new URL(name, DOCS), 'utf8');

interface Block {
  readonly marker: string;
  readonly lang: string;
  readonly code: string;
  readonly before: string;
}

function blocks(text: string): Block[] {
  const found: Block[] = [];
  const fence = /```(\w*)\n([\s\S]*?)```/g;
  for (const match of text.matchAll(fence)) {
    const before = text.slice(Math.max(0, (match.index ?? 0) - 300), match.index);
    const marker = /<!-- ops: ([\w -]+?) -->\s*$/.exec(before)?.[1] ?? '';
    found.push({ marker, lang: match[1] ?? '', code: match[2] ?? '', before });
  }
  return found;
}

const DOC = read('operations.md');
const BLOCKS = blocks(DOC);
const block = (marker: string): string => {
  const found = BLOCKS.filter((b) => b.marker === marker);
  if (found.length !== 1)
    throw new Error(`docs/operations.md has ${found.length} '${marker}' blocks`);
  return found[0]!.code;
};

const KNOWN = [
  'docker',
  'start',
  'stop',
  'replicas',
  'sql connections',
  'migrate',
  'baseline',
  'sql dead-by-topic',
  'sql dead-list',
  'replay',
  'sql requeue-one',
  'sql requeue-topic',
  'sql discard',
  'sql inbox-requeue',
  'yaml retention',
  'sql retention-due',
  'metrics',
];

describe('docs/operations.md', () => {
  it('marks every block, and runs all but the docker ones', () => {
    expect(BLOCKS.length).toBeGreaterThan(15);
    for (const b of BLOCKS) {
      expect(KNOWN, b.code).toContain(b.marker);
      const docker = b.code.includes('docker ');
      expect(b.marker === 'docker', b.code).toBe(docker);
      if (docker) {
        expect(b.before).toContain('_Not run by the tests (no Docker engine here):_');
        for (const line of b.code.trim().split('\n')) expect(line).toMatch(/^docker /);
      }
    }
    expect(new Set(BLOCKS.map((b) => b.marker))).toEqual(new Set(KNOWN));
  });

  it('quotes the capacity figures of docs/benchmarks.md and derives the per-core ones from them', () => {
    const benchmarks = read('benchmarks.md');
    // Figure of record, the CPU share of QueueBox's process that produced it, and the per-core
    // figure operations.md states.
    const figures = [
      { rate: '7,668', share: '| 74.2 / 26.2', cpu: 0.742, stated: 'about 10,000' },
      { rate: '4,238', share: '| 78.1 / 36.0', cpu: 0.781, stated: 'about 5,400' },
      { rate: '5,067', share: '| 60.3 / 17.2', cpu: 0.603, stated: 'about 8,400' },
    ];
    for (const { rate, share, cpu, stated } of figures) {
      expect(benchmarks).toContain(rate);
      expect(benchmarks).toContain(share);
      expect(DOC).toContain(rate);
      const perCore = Number(rate.replace(',', '')) / cpu;
      const said = Number(stated.replace('about ', '').replace(',', ''));
      expect(Math.abs(perCore - said) / said).toBeLessThan(0.05);
      expect(DOC).toContain(stated);
    }
    expect(benchmarks).toContain('**QueueBox 97 µs**');
    expect(benchmarks).toContain('PostgreSQL 62 µs');
    expect(benchmarks).toContain('**5,776 msg/s**');
    expect(DOC).toContain('5,776 msg/s');
    expect(Math.abs(1e6 / 62 - 16_000) / 16_000).toBeLessThan(0.05);
  });
});

describe.skipIf(!pg.available)('docs/operations.md, executed', () => {
  beforeAll(assertBuilt);
  const h = databaseAndSink(pgUrl);
  let work: string;
  let env: Record<string, string>;
  const token = 'ops-doc-admin-token';

  /** Runs one sh block in bash in the work directory; resolves with its exit code and output. */
  const sh = (code: string, extra: Record<string, string> = {}, timeoutMs = 60_000) =>
    new Promise<{ code: number | null; out: string }>((resolve) => {
      const child = spawn('bash', ['-e', '-c', code], {
        cwd: work,
        env: { ...env, ...extra },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      child.once('close', (exit) => {
        clearTimeout(timer);
        resolve({ code: exit, out });
      });
    });
  const pid = () => Number(readFileSync(join(work, 'queuebox.pid'), 'utf8').trim());
  const alive = (id: number) => {
    try {
      process.kill(id, 0);
      return true;
    } catch {
      return false;
    }
  };
  const sql = <T extends object = Record<string, unknown>>(text: string) =>
    h.db.sql.unsafe<T[]>(text);
  const stateOf = async (table: 'outbox' | 'inbox', id: string) =>
    (await h.db.sql<{ state: string }[]>`SELECT state FROM ${h.db.sql(table)} WHERE id = ${id}`)[0]
      ?.state;
  const deadRow = (id: string, topic: string) =>
    h.db.sql`INSERT INTO outbox (id, topic, payload, state, attempt, last_error)
           VALUES (${id}, ${topic}, ${h.db.sql.json({ id })}, 'dead', 5, 'HTTP 503 from the sink')`;

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'queuebox-ops-'));
    const bin = join(work, 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'queuebox'), `#!/bin/sh\nexec "${process.execPath}" "${MAIN}" "$@"\n`);
    chmodSync(join(bin, 'queuebox'), 0o755);
    writeFileSync(
      join(work, 'queuebox.yml'),
      `
${sinkRoute(h.sink.url, { topicPattern: 'order.*' })}${HOOKS_SOURCE}admin:
  enabled: true
  auth:
    type: bearer
    token: \${QB_ADMIN_TOKEN}
${block('yaml retention')}`,
    );
    const port = await freePort();
    env = {
      PATH: `${bin}:${process.env.PATH ?? ''}`,
      HOME: process.env.HOME ?? work,
      QUEUEBOX_CONFIG_FILE: join(work, 'queuebox.yml'),
      QUEUEBOX_DATABASE_URL: h.db.jdbcUrl,
      QUEUEBOX_DATABASE_USERNAME: h.db.user,
      QUEUEBOX_DATABASE_PASSWORD: 'unused-by-trust-auth',
      QUEUEBOX_SERVER_HTTPPORT: String(port),
      QB: `http://127.0.0.1:${port}`,
      QB_ADMIN_TOKEN: token,
    };
  });
  afterAll(() => {
    try {
      if (alive(pid())) process.kill(pid(), 'SIGKILL');
    } catch {
      // No pid file: the start block did not run.
    }
  });

  it(
    'starts, serves, replays, reports and stops as the guide says',
    { timeout: 180_000 },
    async () => {
      // Start: config check, migrate, the service without DDL, ready.
      const start = await sh(block('start'));
      expect(start.code, start.out).toBe(0);
      expect(start.out).toContain('The configuration has no problems');
      expect(start.out).toContain(`Applied ${migrations.length} migration(s)`);
      expect(start.out).toContain('healthy:');
      expect(alive(pid())).toBe(true);
      const ready = (await (await fetch(`${env.QB}/health/ready`)).json()) as {
        components: Record<string, { status: string }>;
      };
      expect(ready.components['retention-service']).toEqual({ status: 'up' });

      // Replicas: a digest of the effective configuration; the connections QueueBox holds.
      const replicas = await sh(block('replicas'));
      expect(replicas.code).toBe(0);
      expect(replicas.out).toMatch(/^[0-9a-f]{64} {2}-$/m);
      const [connections] = await sql<{ queuebox_connections: string; max_connections: number }>(
        block('sql connections'),
      );
      expect(Number(connections?.queuebox_connections)).toBeGreaterThan(0);
      expect(connections?.max_connections).toBeGreaterThan(0);

      // Dead letters: list, requeue one, requeue a topic, replay a topic, discard one.
      const one = '7f0c6c4e-3b1a-4f6e-9a59-0d3f4c2b1a01';
      const discarded = '7f0c6c4e-3b1a-4f6e-9a59-0d3f4c2b1a02';
      await deadRow(one, 'order.paid');
      await deadRow(discarded, 'order.paid');
      await deadRow('7f0c6c4e-3b1a-4f6e-9a59-0d3f4c2b1a11', 'order.shipped');
      await deadRow('7f0c6c4e-3b1a-4f6e-9a59-0d3f4c2b1a12', 'order.shipped');
      await deadRow('7f0c6c4e-3b1a-4f6e-9a59-0d3f4c2b1a21', 'order.created');
      await deadRow('7f0c6c4e-3b1a-4f6e-9a59-0d3f4c2b1a22', 'order.created');
      const byTopic = await sql<{ topic: string; dead: string; a_reason: string }>(
        block('sql dead-by-topic'),
      );
      expect(byTopic.map((row) => [row.topic, Number(row.dead)]).sort()).toEqual([
        ['order.created', 2],
        ['order.paid', 2],
        ['order.shipped', 2],
      ]);
      expect(byTopic[0]?.a_reason).toBe('HTTP 503 from the sink');
      const listed = await sql<{ id: string; topic: string }>(block('sql dead-list'));
      expect(listed.map((row) => row.topic)).toEqual(['order.created', 'order.created']);

      expect((await h.db.sql.unsafe(block('sql requeue-one'))).count).toBe(1);
      expect((await h.db.sql.unsafe(block('sql requeue-topic'))).count).toBe(2);
      const replay = await sh(block('replay'));
      expect(replay.code, replay.out).toBe(0);
      expect(JSON.parse(replay.out)).toEqual({ moved: 2 });
      expect((await h.db.sql.unsafe(block('sql discard'))).count).toBe(1);
      expect(await stateOf('outbox', discarded)).toBeUndefined();
      // Requeued and replayed rows are delivered again.
      await eventually(async () => {
        const [row] = await h.db.sql<{ sent: number }[]>`
        SELECT count(*)::int AS sent FROM outbox WHERE state = 'sent'`;
        return row?.sent === 5;
      });
      expect(h.sink.requests.length).toBe(5);

      // A dead inbox row goes back to pending and the relay forwards it.
      const inboxRow = '7f0c6c4e-3b1a-4f6e-9a59-0d3f4c2b1a03';
      await h.db
        .sql`INSERT INTO inbox (id, source, idempotency_key, event_type, payload, state, attempt, last_error)
      VALUES (${inboxRow}, 'hooks', 'evt-ops-1', 'order.inbound', ${h.db.sql.json({ id: 'evt-ops-1' })}, 'dead', 1, 'an earlier failure')`;
      expect((await h.db.sql.unsafe(block('sql inbox-requeue'))).count).toBe(1);
      await eventually(async () => (await stateOf('inbox', inboxRow)) === 'processed');
      await eventually(() => h.sink.requests.some((r) => r.headers['x-topic'] === 'order.inbound'));

      // Retention: what the next run deletes (rows older than 7 days).
      await h.db.sql`UPDATE outbox SET updated_at = now() - interval '8 days' WHERE id = ${one}`;
      const due = await sql<{ state: string; rows: string }>(block('sql retention-due'));
      expect(due.map((row) => [row.state, Number(row.rows)])).toEqual([['sent', 1]]);

      // Alerts: the values the backlog and pool alerts read.
      const metrics = await sh(block('metrics'));
      expect(metrics.code).toBe(0);
      const names = metrics.out
        .trim()
        .split('\n')
        .map((line) => line.split(/[{ ]/)[0]);
      expect(names.sort()).toEqual([
        'hikaricp_connections_pending',
        'queuebox_inbox_oldest_pending_age_seconds',
        'queuebox_outbox_oldest_pending_age_seconds',
      ]);

      // Stop: SIGTERM drains and exits.
      const running = pid();
      const stop = await sh(block('stop'));
      expect(stop.code, readFileSync(join(work, 'queuebox.log'), 'utf8').slice(-3000)).toBe(0);
      expect(stop.out).toContain('Shutdown complete');
      expect(alive(running)).toBe(false);
    },
  );

  it('migrates a new database once, then finds nothing to apply', async () => {
    const fresh = await createFreshDatabase(pgUrl);
    try {
      const result = await sh(block('migrate'), { QUEUEBOX_DATABASE_URL: fresh.jdbcUrl });
      expect(result.code, result.out).toBe(0);
      expect(result.out).toContain(APPLIED_ALL);
      expect(result.out).toContain('The database schema is up to date.');
    } finally {
      await fresh.drop();
    }
  });

  it('records a baseline for tables made by hand, then starts on them', async () => {
    const fresh = await createFreshDatabase(pgUrl);
    try {
      const url = { QUEUEBOX_DATABASE_URL: fresh.jdbcUrl };
      expect((await sh('queuebox migrate', url)).code).toBe(0);
      await fresh.sql`DROP TABLE flyway_schema_history`;
      const result = await sh(block('baseline'), url);
      expect(result.code, result.out).toBe(0);
      const [row] = await fresh.sql<{ version: string }[]>`
        SELECT version FROM flyway_schema_history WHERE type = 'BASELINE'`;
      expect(row?.version).toBe('11');
    } finally {
      await fresh.drop();
    }
  });
});
