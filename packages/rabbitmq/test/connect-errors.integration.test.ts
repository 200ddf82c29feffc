import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { requireService } from '@queuebox/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { openConnection } from '../src/connection.js';

const rabbit = await requireService('rabbitmq', 'rabbitmq: connection errors');
const url = rabbit.available ? rabbit.url : 'amqp://guest:guest@127.0.0.1:5672';
const run = promisify(execFile);

/** rabbitmqctl on this machine, when it answers: the one way to make a vhost guest may not use. */
const rabbitmqctl = await run('rabbitmqctl', ['-q', 'status'], { timeout: 20_000 }).then(
  () => true,
  () => false,
);

function withUrl(change: (url: URL) => void): string {
  const parsed = new URL(url);
  change(parsed);
  return parsed.toString();
}

async function connectError(target: string): Promise<string> {
  const model = await openConnection(target, {
    connectionName: 'queuebox test',
    timeoutMs: 5000,
  }).then(
    (opened) => opened,
    (error: unknown) => error as Error,
  );
  if (!(model instanceof Error)) {
    await model.close();
    throw new Error('the connection opened');
  }
  return model.message;
}

/** A failed connect names what is wrong, never the password (a distinctive one here). */
describe.skipIf(!rabbit.available)('RabbitMQ connection errors', () => {
  const secret = `pw-${randomBytes(6).toString('hex')}`;
  const vhosts: string[] = [];
  afterAll(async () => {
    for (const vhost of vhosts) await run('rabbitmqctl', ['-q', 'delete_vhost', vhost]);
  });

  it('names a virtual host that does not exist', async () => {
    const vhost = `qb-missing-${randomBytes(4).toString('hex')}`;
    const message = await connectError(withUrl((u) => (u.pathname = `/${vhost}`)));
    expect(message).toMatch(
      new RegExp(
        `^Connecting to RabbitMQ failed: the virtual host '${vhost}' does not exist on the broker at `,
      ),
    );
    expect(message).not.toContain('Expected ConnectionOpenOk');
  });

  it('says authentication failed, and never prints the password', async () => {
    const message = await connectError(
      withUrl((u) => {
        u.username = 'qb-nobody';
        u.password = secret;
      }),
    );
    expect(message).toMatch(
      /^Connecting to RabbitMQ failed: authentication failed: the broker at \S+ refused the login of user 'qb-nobody'/,
    );
    expect(message).not.toContain(secret);
  });

  it('says TLS was refused when amqps:// meets a plain AMQP port', async () => {
    const message = await connectError(
      withUrl((u) => {
        u.protocol = 'amqps:';
        u.password = secret;
      }).replace(/^amqp:/, 'amqps:'),
    );
    expect(message).toMatch(
      /^Connecting to RabbitMQ failed: TLS refused: the TLS handshake with \S+ failed \(the port does not speak TLS\)/,
    );
    expect(message).not.toContain(secret);
  });

  it.skipIf(!rabbitmqctl)(
    `says access was refused for a virtual host the user may not use${rabbitmqctl ? '' : ' (skipped: rabbitmqctl does not answer here)'}`,
    async () => {
      const vhost = `qb-noaccess-${randomBytes(4).toString('hex')}`;
      await run('rabbitmqctl', ['-q', 'add_vhost', vhost], { timeout: 20_000 });
      vhosts.push(vhost);
      const message = await connectError(withUrl((u) => (u.pathname = `/${vhost}`)));
      expect(message).toMatch(
        new RegExp(
          `^Connecting to RabbitMQ failed: access refused: user '\\S+' has no permission on the virtual host '${vhost}'`,
        ),
      );
    },
    60_000,
  );
});
