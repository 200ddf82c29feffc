import { existsSync, readFileSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import postgres from 'postgres';
import { afterAll, describe, expect, it } from 'vitest';
import { systemPostgresBinaries } from './binaries.js';
import { freePort } from './ports.js';
import { scratchDataDir, startPrivatePostgres } from './private-postgres.js';

/**
 * The private server as the resilience tests use it: an installed PostgreSQL's programs, a data
 * directory of its own, a free port; under root it runs as the user `postgres`.
 */
const BIN = '/usr/lib/postgresql/15/bin';
const installed = existsSync(`${BIN}/initdb`);
const required = (process.env.QUEUEBOX_TEST_REQUIRE ?? '').split(',').includes('postgres');
if (!installed) {
  if (required) throw new Error(`QUEUEBOX_TEST_REQUIRE names postgres, but ${BIN} is missing.`);
  console.warn(`Skipping the private PostgreSQL suite: ${BIN} is missing.`);
}

function owner(pid: number): number | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number(/^Uid:\s+(\d+)/m.exec(status)?.[1]);
  } catch {
    return null; // gone
  }
}

describe.skipIf(!installed)('a private PostgreSQL from an installed PostgreSQL', () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('starts on its own port and data, stops without a trace, and keeps the data for a restart', async () => {
    const binaries = await systemPostgresBinaries(BIN);
    const dataDir = await scratchDataDir('resilience');
    dirs.push(dirname(dataDir));
    const port = await freePort();
    const options = { binaries, dataDir, port, database: 'chaos', settings: { fsync: 'off' } };

    const first = await startPrivatePostgres(options);
    expect(first.created).toBe(true);
    expect(first.binaries).toBe(binaries); // reachable where it is installed: no copy
    if (process.getuid?.() === 0) expect(owner(first.pid)).not.toBe(0);
    let sql = postgres(first.url, { max: 1, onnotice: () => undefined });
    try {
      const [row] = await sql<{ version: string; fsync: string; db: string }[]>`
        SELECT current_setting('server_version') AS version, current_setting('fsync') AS fsync,
               current_database() AS db`;
      expect(row).toEqual({ version: expect.stringMatching(/^15\./), fsync: 'off', db: 'chaos' });
      await sql`CREATE TABLE kept (n int)`;
      await sql`INSERT INTO kept VALUES (7)`;
    } finally {
      await sql.end();
    }
    await first.stop();
    expect(owner(first.pid)).toBeNull();

    const second = await startPrivatePostgres(options);
    try {
      expect(second.created).toBe(false);
      sql = postgres(second.url, { max: 1, onnotice: () => undefined });
      expect(await sql`SELECT n FROM kept`).toEqual([{ n: 7 }]);
      await sql.end();
    } finally {
      await second.stop();
    }
    expect(owner(second.pid)).toBeNull();
  });
});
