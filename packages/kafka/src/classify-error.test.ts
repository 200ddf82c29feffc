import kafkajs from 'kafkajs';
import { QueueBoxError } from '@queuebox/core';
import { describe, expect, it } from 'vitest';
import { classifyKafkaError, kafkaError } from './classify-error.js';

const {
  KafkaJSConnectionError,
  KafkaJSNumberOfRetriesExceeded,
  KafkaJSProtocolError,
  KafkaJSSASLAuthenticationError,
} = kafkajs;

/** A broker error as kafkajs raises it from an error code of a produce response. */
const protocol = (type: string) =>
  new KafkaJSProtocolError({
    message: `broker says ${type}`,
    type,
    code: 1,
    retriable: false,
  } as never);

describe('classifyKafkaError', () => {
  it('calls a record the broker refuses for itself permanent', () => {
    for (const type of ['MESSAGE_TOO_LARGE', 'INVALID_RECORD', 'INVALID_TOPIC_EXCEPTION']) {
      expect(classifyKafkaError(protocol(type))).toEqual({
        errorClass: 'permanent',
        code: 'publish_failed',
        driverCode: type,
      });
    }
  });

  it('reads the broker answer under kafkajs retry wrappers', () => {
    const wrapped = new KafkaJSNumberOfRetriesExceeded(protocol('MESSAGE_TOO_LARGE'), {
      retryCount: 5,
      retryTime: 1000,
    });
    expect(classifyKafkaError(wrapped).errorClass).toBe('permanent');
  });

  it('calls a corrupt record, an unknown topic and a lost connection transient', () => {
    expect(classifyKafkaError(protocol('CORRUPT_MESSAGE')).errorClass).toBe('transient');
    expect(classifyKafkaError(protocol('UNKNOWN_TOPIC_OR_PARTITION')).errorClass).toBe('transient');
    expect(
      classifyKafkaError(new KafkaJSConnectionError('Connection error: ECONNREFUSED')),
    ).toEqual({
      errorClass: 'transient',
      code: 'publish_failed',
      driverCode: 'KafkaJSConnectionError',
    });
  });

  it('reads refused authorization or credentials as an auth failure a fix can clear', () => {
    expect(classifyKafkaError(protocol('TOPIC_AUTHORIZATION_FAILED'))).toMatchObject({
      errorClass: 'transient',
      code: 'auth_failed',
    });
    // The kafkajs typings leave out the constructor's message.
    const Sasl = KafkaJSSASLAuthenticationError as unknown as new (message: string) => Error;
    expect(classifyKafkaError(new Sasl('bad password'))).toMatchObject({
      code: 'auth_failed',
    });
  });

  it('keeps what was classified where it arose, and calls the unknown transient', () => {
    const refused = new QueueBoxError('publish_failed', 'too big', { retryable: false });
    expect(classifyKafkaError(refused).errorClass).toBe('permanent');
    expect(classifyKafkaError('odd')).toEqual({
      errorClass: 'transient',
      code: 'publish_failed',
      driverCode: null,
    });
  });

  it('makes a QueueBoxError whose retryable flag follows the class, with the text as given', () => {
    const tooLarge = protocol('MESSAGE_TOO_LARGE');
    const refused = kafkaError(tooLarge, 'Publish failed: too large');
    expect(refused).toBeInstanceOf(QueueBoxError);
    expect(refused).toMatchObject({
      code: 'publish_failed',
      retryable: false,
      message: 'Publish failed: too large',
      cause: tooLarge,
    });
    const lost = new KafkaJSConnectionError('Connection error: ECONNREFUSED');
    expect(kafkaError(lost, 'lost')).toMatchObject({ code: 'publish_failed', retryable: true });
    expect(kafkaError(protocol('TOPIC_AUTHORIZATION_FAILED'), 'no')).toMatchObject({
      code: 'auth_failed',
      retryable: true,
    });
  });
});
