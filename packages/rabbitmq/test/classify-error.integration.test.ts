import { randomBytes } from 'node:crypto';
import { connect } from 'amqplib';
import { QueueBoxError } from '@queuebox/core';
import { requireService, serviceUrl } from '@queuebox/testing';
import { describe, expect, it } from 'vitest';
import { classifyRabbitError, rabbitError } from '../src/classify-error.js';

const rabbit = await requireService('rabbitmq', 'rabbitmq: error classifier');
const url = serviceUrl(rabbit);

/** What a promise rejected with, or a failure when it did not reject. */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('it did not fail');
    },
    (error: unknown) => error,
  );
}

/** The errors here are the ones amqplib raises against a real broker, not copies of them. */
describe.skipIf(!rabbit.available)('classifyRabbitError on amqplib errors', () => {
  it('calls a channel closed for a missing exchange transient, with its reply code', async () => {
    const model = await connect(url);
    try {
      const channel = await model.createChannel();
      channel.on('error', () => {});
      const missing = `queuebox-missing-${randomBytes(4).toString('hex')}`;
      const error = await rejection(channel.checkExchange(missing));
      expect(classifyRabbitError(error)).toEqual({
        errorClass: 'transient',
        code: 'publish_failed',
        driverCode: '404',
      });
      const classified = rabbitError(error, 'Publish failed: no exchange');
      expect(classified).toBeInstanceOf(QueueBoxError);
      expect(classified).toMatchObject({
        code: 'publish_failed',
        retryable: true,
        message: 'Publish failed: no exchange',
        cause: error,
      });
    } finally {
      await model.close();
    }
  });

  it('calls a publish on a closed channel transient', async () => {
    const model = await connect(url);
    try {
      const channel = await model.createConfirmChannel();
      await channel.close();
      let error: unknown;
      try {
        channel.publish('', 'nowhere', Buffer.from('x'));
      } catch (thrown) {
        error = thrown;
      }
      expect((error as Error).name).toBe('IllegalOperationError');
      expect(classifyRabbitError(error)).toMatchObject({ errorClass: 'transient' });
      expect(rabbitError(error, 'closed').retryable).toBe(true);
    } finally {
      await model.close();
    }
  });

  it('reads a refused login as an auth failure a fix can clear', async () => {
    const wrong = new URL(url);
    wrong.password = `not-${randomBytes(6).toString('hex')}`;
    const error = await rejection(connect(wrong.toString()));
    expect(classifyRabbitError(error)).toEqual({
      errorClass: 'transient',
      code: 'auth_failed',
      driverCode: 'ACCESS_REFUSED',
    });
    expect(rabbitError(error, 'refused')).toMatchObject({ code: 'auth_failed', retryable: true });
  });
});
