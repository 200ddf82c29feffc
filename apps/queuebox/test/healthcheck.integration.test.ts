import { readFileSync } from 'node:fs';
import { freePort, requireService } from '@queuebox/testing';
import postgres from 'postgres';
import { describe, expect, it } from 'vitest';
import { runQueueBox, startQueueBox } from './process.js';
import { commandsOnDatabase } from './process-suite.js';
import { UNREACHABLE_SINK } from './yaml-pieces.js';

const pg = await requireService('postgres', 'app: the image health command');
const pgUrl = pg.available ? pg.url : '';

const DOCKERFILE = new URL('../../../docker/Dockerfile', import.meta.url);

/** The HEALTHCHECK command of docker/Dockerfile, with the image's /app pointed at this build. */
function imageHealthCommand(): string[] {
  const text = readFileSync(DOCKERFILE, 'utf8').replace(/\\\n/g, ' ');
  const match = /^HEALTHCHECK .*? CMD (\[.*\])\s*$/m.exec(text);
  if (match?.[1] === undefined) throw new Error('docker/Dockerfile has no HEALTHCHECK CMD [...]');
  const command = JSON.parse(match[1]) as string[];
  expect(command.slice(0, 2)).toEqual(['node', '/app/dist/main.js']);
  return command.slice(2);
}

describe.skipIf(!pg.available)('the image health command', () => {
  const h = commandsOnDatabase(pgUrl, UNREACHABLE_SINK);

  it('follows a management port and another data port: healthy while up, unhealthy once stopped', async () => {
    const args = imageHealthCommand();
    const withPorts = {
      ...h.env,
      QUEUEBOX_SERVER_HTTPPORT: String(await freePort()),
      QUEUEBOX_SERVER_MANAGEMENTPORT: String(await freePort()),
    };
    const qb = startQueueBox([], withPorts);
    try {
      await qb.waitFor('is listening on port');
      const healthy = await runQueueBox(args, withPorts);
      expect(healthy.code).toBe(0);
      expect(healthy.stdout).toContain(
        `healthy: http://127.0.0.1:${withPorts.QUEUEBOX_SERVER_MANAGEMENTPORT}/health/ready answered 200`,
      );
      // The old fixed command asked :8080/health; on the data port readiness is not served at all.
      const { QUEUEBOX_SERVER_MANAGEMENTPORT: _moved, ...dataPortOnly } = withPorts;
      const onDataPort = await runQueueBox(args, dataPortOnly);
      expect(onDataPort.code).toBe(1);
      expect(onDataPort.stderr).toContain('answered 404');
    } finally {
      qb.child.kill('SIGTERM');
    }
    expect((await qb.exited).code).toBe(0);
    const stopped = await runQueueBox(args, withPorts);
    expect(stopped.code).toBe(1);
    expect(stopped.stderr).toContain('did not answer');
  });

  it('asks the data port when no management port is set, and reports a 503 as unhealthy', async () => {
    const port = String(await freePort());
    const dataOnly = { ...h.env, QUEUEBOX_SERVER_HTTPPORT: port };
    const qb = startQueueBox([], dataOnly);
    try {
      await qb.waitFor('is listening on port');
      const healthy = await runQueueBox(imageHealthCommand(), dataOnly);
      expect(healthy.code).toBe(0);
      expect(healthy.stdout).toContain(`http://127.0.0.1:${port}/health/ready answered 200`);
      // The database goes away under the running service: readiness answers 503.
      const admin = postgres(pgUrl, { max: 1, onnotice: () => undefined });
      await admin`ALTER DATABASE ${admin(h.db.name)} WITH ALLOW_CONNECTIONS false`;
      await admin`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = ${h.db.name}`;
      try {
        const down = await runQueueBox(imageHealthCommand(), dataOnly);
        expect(down.code).toBe(1);
        expect(down.stderr).toContain('answered 503');
        expect(down.stderr).toContain('"database":{"status":"down"}');
      } finally {
        await admin`ALTER DATABASE ${admin(h.db.name)} WITH ALLOW_CONNECTIONS true`;
        await admin.end();
      }
    } finally {
      qb.child.kill('SIGTERM');
    }
    await qb.exited;
  });

  it('is unhealthy when the configuration does not load', async () => {
    const result = await runQueueBox(['healthcheck'], { ...h.env, QUEUEBOX_SERVER_HTTPPORT: 'x' });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('unhealthy: the configuration does not load.');
  });
});
