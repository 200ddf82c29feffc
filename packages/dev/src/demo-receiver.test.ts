import type { Logger } from '@queuebox/core';
import { afterEach, describe, expect, it } from 'vitest';
import { startDemoReceiver, type DemoReceiver } from './demo-receiver.js';

/** The lines the receiver logged, as the dev command's logger would print them. */
function recordingLogger(lines: string[]): Logger {
  const logger: Logger = {
    debug: () => undefined,
    info: (message) => void lines.push(message),
    warn: () => undefined,
    error: () => undefined,
    child: () => logger,
  };
  return logger;
}

describe('the demo receiver', () => {
  let receiver: DemoReceiver | undefined;
  afterEach(async () => {
    await receiver?.close();
    receiver = undefined;
  });

  it('logs the inbox id of a relayed message, so a webhook answer can be matched to its delivery', async () => {
    const lines: string[] = [];
    receiver = await startDemoReceiver(recordingLogger(lines));
    const response = await fetch(`${receiver.url}/webhook`, {
      method: 'POST',
      headers: {
        'x-topic': 'order.created',
        'x-message-id': 'outbox-1',
        'x-inbox-id': 'inbox-7',
        'content-type': 'application/json',
      },
      body: '{"n":1}',
    });
    expect(response.status).toBe(200);
    expect(lines).toEqual([
      'Demo receiver got POST /webhook topic=order.created id=outbox-1 inbox-id=inbox-7: {"n":1}',
    ]);
  });

  it('leaves the inbox id out of a message the application wrote', async () => {
    const lines: string[] = [];
    receiver = await startDemoReceiver(recordingLogger(lines));
    await fetch(`${receiver.url}/webhook`, {
      method: 'POST',
      headers: { 'x-topic': 't', 'x-message-id': 'outbox-2' },
      body: 'x',
    });
    expect(lines).toEqual(['Demo receiver got POST /webhook topic=t id=outbox-2: x']);
  });
});
