import { QueueBoxError } from '@queuebox/core';
import { describe, expect, it } from 'vitest';
import { classifyRabbitError, rabbitError } from './classify-error.js';

/**
 * A channel close in the shape amqplib raises it (a plain Error, the broker's reply code in
 * `code`): a broker with default limits cannot be made to refuse a message as too large, so the
 * 311 case is built here; the errors a real broker does raise are classified in
 * `test/classify-error.integration.test.ts`.
 */
const closedByServer = (code: number, text: string) =>
  Object.assign(new Error(`Channel closed by server: ${code} (${text})`), { code });

describe('classifyRabbitError', () => {
  it('calls a message the broker refuses for its content permanent', () => {
    expect(classifyRabbitError(closedByServer(311, 'CONTENT-TOO-LARGE'))).toEqual({
      errorClass: 'permanent',
      code: 'publish_failed',
      driverCode: '311',
    });
  });

  it('calls a missing exchange and a lost connection transient', () => {
    expect(classifyRabbitError(closedByServer(404, 'NOT-FOUND')).errorClass).toBe('transient');
    const reset = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
    expect(classifyRabbitError(reset)).toEqual({
      errorClass: 'transient',
      code: 'publish_failed',
      driverCode: 'ECONNRESET',
    });
  });

  it('reads refused access as an auth failure a fix can clear', () => {
    expect(classifyRabbitError(closedByServer(403, 'ACCESS-REFUSED'))).toMatchObject({
      errorClass: 'transient',
      code: 'auth_failed',
    });
    expect(
      classifyRabbitError(new Error('Handshake terminated by server: login was refused')),
    ).toMatchObject({
      code: 'auth_failed',
    });
  });

  it('keeps what was classified where it arose, and calls the unknown transient', () => {
    const refused = new QueueBoxError('publish_failed', 'too big', { retryable: false });
    expect(classifyRabbitError(refused).errorClass).toBe('permanent');
    expect(classifyRabbitError('something odd').errorClass).toBe('transient');
  });

  it('makes a QueueBoxError whose retryable flag follows the class, with the text as given', () => {
    const tooLarge = closedByServer(311, 'CONTENT-TOO-LARGE');
    expect(rabbitError(tooLarge, 'Publish failed: too large')).toMatchObject({
      code: 'publish_failed',
      retryable: false,
      message: 'Publish failed: too large',
      cause: tooLarge,
    });
    expect(rabbitError(closedByServer(404, 'NOT-FOUND'), 'x')).toMatchObject({ retryable: true });
  });
});
