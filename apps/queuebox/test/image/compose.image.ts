import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { freePort, requireService } from '@queuebox/testing';
import { load } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { databaseAndSink } from '../database-and-sink.js';
import { eventually } from '../service.js';
import { IMAGE, ROOT, containerName, engine, engineOk, inspect, runDetached } from './engine.js';

/**
 * docker/compose.yml, as far as it runs here: validated against the Compose specification's
 * schema (Debian's docker-compose, `config`), its `queuebox` service run as compose defines it
 * against this machine's PostgreSQL, and its `receiver` stopped by SIGTERM. Its other services
 * name images no registry here serves (docs/operations.md, "The image, built here").
 */
const COMPOSE = join(ROOT, 'docker/compose.yml');
const PROFILES = ['observability', 'rabbitmq', 'nats', 'kafka', 'sqlserver'];

interface ComposeService {
  readonly image?: string;
  readonly command?: string[];
  readonly environment?: Record<string, string>;
  readonly volumes?: string[];
  readonly stop_grace_period?: string;
}

function composeConfig(args: string[] = []): { status: number | null; output: string } {
  const run = spawnSync('docker-compose', ['-f', COMPOSE, ...args, 'config'], {
    encoding: 'utf8',
  });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

const seconds = (duration: string) => {
  const match = /^(?:(\d+)m)?(?:(\d+)s)?$/.exec(duration);
  return Number(match?.[1] ?? 0) * 60 + Number(match?.[2] ?? 0);
};

const pg = await requireService('postgres', 'docker/compose.yml on the image');

describe('docker/compose.yml', () => {
  it('is valid by the Compose specification, with every profile', () => {
    const result = composeConfig(PROFILES.flatMap((profile) => ['--profile', profile]));
    expect(result.status, result.output).toBe(0);
  });

  it('stops its receiver on SIGTERM, not after the kill', async () => {
    const { services } = load(composeConfig().output) as {
      services: Record<string, ComposeService>;
    };
    const receiver = services.receiver!;
    const name = containerName('receiver');
    try {
      await runDetached(name, 'none', [receiver.image!, ...receiver.command!]);
      await eventually(async () => (await inspect<boolean>(name, '.State.Running')) === true);
      // Listening: SIGTERM then finds the script's handler, not a process still starting.
      await eventually(async () => {
        const out = await engine([
          'exec',
          name,
          'node',
          '-e',
          "require('net').connect(8080).on('connect',()=>process.exit(0)).on('error',()=>process.exit(1))",
        ]);
        return out.code === 0;
      });
      await engineOk(['stop', '--time', '10', name], 60_000);
      // 0: the script's own exit on SIGTERM; the kill after 10 s would leave 137.
      expect(await inspect<number>(name, '.State.ExitCode')).toBe(0);
    } finally {
      await engine(['rm', '--force', name]);
    }
  });

  describe.skipIf(!pg.available)('its queuebox service', () => {
    const h = databaseAndSink(pg.available ? pg.url : '', { prefix: 'qb_image_compose' });

    it('runs on the demo configuration it mounts, stores and relays a webhook, and stops in its grace period', async () => {
      const { db, sink } = h;
      const { services } = load(composeConfig().output) as {
        services: Record<string, ComposeService>;
      };
      const service = services.queuebox!;
      // Compose's network names (postgres, receiver) become this machine's services; the port
      // is a free one, as the host's network is shared.
      const port = await freePort();
      const environment: Record<string, string> = {
        ...service.environment,
        DATABASE_URL: db.jdbcUrl,
        DATABASE_USERNAME: db.user,
        RECEIVER_URL: sink.url,
        QUEUEBOX_SERVER_HTTPPORT: String(port),
      };
      expect(Object.keys(environment)).toEqual(
        expect.arrayContaining(Object.keys(service.environment ?? {})),
      );
      const name = containerName('compose-queuebox');
      try {
        await runDetached(name, 'host', [
          ...Object.entries(environment).flatMap(([key, value]) => ['-e', `${key}=${value}`]),
          ...(service.volumes ?? []).flatMap((volume) => ['-v', volume]),
          IMAGE,
        ]);
        await eventually(
          async () => (await fetch(`http://127.0.0.1:${port}/health/ready`).catch(() => null))?.ok,
          60_000,
        );
        // The request compose.yml's own comment tells the reader to send.
        const response = await fetch(`http://127.0.0.1:${port}/inbox/stripe`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ id: 'evt_1', type: 'payment.succeeded' }),
        });
        expect(response.status).toBeLessThan(300);
        const delivered = await eventually(
          () => sink.requests.find((request) => request.body.includes('evt_1')),
          60_000,
        );
        expect(delivered.url).toBe('/webhook');
        const grace = seconds(service.stop_grace_period ?? '10s');
        expect(grace).toBe(90);
        await engineOk(['stop', '--time', String(grace), name], (grace + 30) * 1000);
        expect(await inspect<number>(name, '.State.ExitCode')).toBe(0);
      } finally {
        await engine(['rm', '--force', name]);
      }
    });
  });
});
