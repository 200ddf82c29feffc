import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Secret, silentLogger } from '@queuebox/core';
import { createNatsKit, requireService, serviceUrl, suiteScope } from '@queuebox/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNatsPublisher } from '../src/index.js';
import { destinations, natsDestination, outboxMessage, publishRequest } from './nats-config.js';
import {
  privateServerAvailable,
  startPrivateServer,
  type PrivateServer,
} from './private-server.js';

const nats = await requireService('nats', 'nats: publisher answers');
const url = serviceUrl(nats);

/**
 * How the answer to a JetStream publish is read, now that QueueBox waits for PubAcks on its own
 * reply subscription instead of the client's request machinery: the stream's refusal, many
 * answers in flight that come back out of order, and a server that refuses the publish or the
 * reply subscription for lack of permission, which must fail the publish at once, not after
 * `timeoutMs`.
 */
describe.skipIf(!nats.available)('NATS publisher: the answers of the stream', () => {
  const { kit, closing } = suiteScope(() => createNatsKit(url, 'qb-ans'));

  const publisher = (servers = url, timeoutMs = 30_000, username: string | null = null) => {
    const created = createNatsPublisher(
      destinations({
        ns: natsDestination(servers, {
          timeoutMs,
          ...(username === null ? {} : { username, password: new Secret('pw') }),
        }),
      }),
      { logger: silentLogger },
    );
    return closing(created);
  };

  it("fails a publish the stream refuses (an application's Nats-Expected-Last-Sequence) with the stream's reason", async () => {
    const name = await kit.stream(kit.name('expect'), [kit.subject('expect.>')]);
    const subject = kit.subject('expect.orders');
    const ns = publisher();
    expect(await ns.publish(publishRequest('ns', subject))).toEqual({ ok: true });
    const wrong = outboxMessage({ headers: { 'Nats-Expected-Last-Sequence': '7' } });
    const refused = await ns.publish(publishRequest('ns', subject, wrong));
    expect(refused).toMatchObject({ ok: false });
    expect((refused as { error: Error }).error.message).toMatch(
      /^Publish failed: the stream refused it: wrong last sequence: 1 \(400\)$/,
    );
    const right = outboxMessage({ headers: { 'Nats-Expected-Last-Sequence': '1' } });
    expect(await ns.publish(publishRequest('ns', subject, right))).toEqual({ ok: true });
    expect((await kit.messages(name)).map((m) => m.headers['x-message-id'])).toHaveLength(2);
  });

  it('gives each of 200 publishes in flight on two streams its own answer', async () => {
    const first = await kit.stream(kit.name('many-a'), [kit.subject('many-a.>')]);
    const second = await kit.stream(kit.name('many-b'), [kit.subject('many-b.>')], {
      max_msgs: 50,
      discard: 'new' as never,
    });
    const ns = publisher();
    const messages = Array.from({ length: 200 }, (_, i) => ({
      message: outboxMessage(),
      subject: kit.subject(i % 2 === 0 ? 'many-a.x' : 'many-b.x'),
    }));
    const results = await Promise.all(
      messages.map(({ message, subject }) => ns.publish(publishRequest('ns', subject, message))),
    );
    // Stream b takes 50 and refuses the other 50 ("maximum messages exceeded"); a takes all.
    const refusedIds = messages.filter((_, i) => !results[i]!.ok).map(({ message }) => message.id);
    expect(refusedIds).toHaveLength(50);
    expect(
      results
        .filter((r) => !r.ok)
        .every((r) => /maximum messages/i.test((r as { error: Error }).error.message)),
    ).toBe(true);
    const inA = (await kit.messages(first)).map((m) => m.headers['x-message-id']![0]);
    const inB = (await kit.messages(second)).map((m) => m.headers['x-message-id']![0]);
    expect(inA).toHaveLength(100);
    expect(inB).toHaveLength(50);
    const stored = new Set([...inA, ...inB]);
    for (const id of refusedIds) expect(stored.has(id)).toBe(false);
    expect(stored.size + refusedIds.length).toBe(200);
  });

  describe.skipIf(!privateServerAvailable())('on a server with permissions', () => {
    let server: PrivateServer;
    let dir: string;

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'qb-nats-perm-'));
      const config = join(dir, 'server.conf');
      writeFileSync(
        config,
        `authorization { users = [
          { user: pub, password: pw, permissions: { publish: { deny: ["denied.>"] } } }
          { user: noinbox, password: pw, permissions: { subscribe: { deny: ["_INBOX.>"] } } }
        ] }\n`,
      );
      server = await startPrivateServer(['-c', config]);
    });
    afterAll(async () => {
      await server?.stop();
      rmSync(dir, { recursive: true, force: true });
    });

    it('fails a publish the server refuses for lack of permission at once, and only that one', async () => {
      const ns = publisher(server.url, 20_000, 'pub');
      const started = Date.now();
      const [denied, allowed] = await Promise.all([
        ns.publish(publishRequest('ns', 'denied.orders')),
        // This server has no JetStream: an allowed subject meets no responder.
        ns.publish(publishRequest('ns', 'allowed.orders')),
      ]);
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(denied).toEqual({
        ok: false,
        error: expect.objectContaining({
          message: 'Publish failed: Permissions Violation for Publish to "denied.orders"',
          retryable: true,
        }) as unknown,
      });
      expect(allowed).toEqual({
        ok: false,
        error: expect.objectContaining({
          message: 'Publish failed: no JetStream stream takes this subject (503 no responders)',
          retryable: true,
        }) as unknown,
      });
    });

    it('fails the publishes at once when the server refuses the reply subscription', async () => {
      const ns = publisher(server.url, 20_000, 'noinbox');
      const started = Date.now();
      const outcome = await ns.publish(publishRequest('ns', 'orders.created'));
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(outcome).toMatchObject({ ok: false });
      expect((outcome as { error: Error }).error.message).toMatch(
        /^Publish failed: .*Permissions Violation for Subscription to "_INBOX\./i,
      );
    });
  });
});
