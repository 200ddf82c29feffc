import kafkajs from 'kafkajs';
import { describe, expect, it } from 'vitest';
import {
  classifyPublishError,
  connectUnanswered,
  protocolType,
  rootCause,
} from './publish-failure.js';

const {
  KafkaJSConnectionError,
  KafkaJSNonRetriableError,
  KafkaJSNumberOfRetriesExceeded,
  KafkaJSProtocolError,
  KafkaJSRequestTimeoutError,
  KafkaJSSASLAuthenticationError,
} = kafkajs;

/** A broker error as kafkajs raises it from an error code of a produce response. */
const protocol = (type: string, message = `broker says ${type}`, retriable = false) =>
  new KafkaJSProtocolError({ message, type, code: 1, retriable } as never);

const retried = (error: Error) =>
  new KafkaJSNumberOfRetriesExceeded(error, { retryCount: 5, retryTime: 1000 });

describe('classifyPublishError', () => {
  it('isolates each record on a refusal of one record, so one row never fails its neighbours', () => {
    for (const type of [
      'MESSAGE_TOO_LARGE',
      'RECORD_LIST_TOO_LARGE',
      'INVALID_RECORD',
      'CORRUPT_MESSAGE',
      'UNSUPPORTED_FOR_MESSAGE_FORMAT',
    ]) {
      expect(classifyPublishError(protocol(type))).toEqual({
        scope: 'record',
        renewProducer: false,
        text: `Publish failed: broker says ${type} (${type})`,
      });
    }
  });

  it('isolates each topic on a refusal of a topic', () => {
    for (const type of [
      'UNKNOWN_TOPIC_OR_PARTITION',
      'INVALID_TOPIC_EXCEPTION',
      'TOPIC_AUTHORIZATION_FAILED',
      'POLICY_VIOLATION',
    ]) {
      expect(classifyPublishError(protocol(type))).toMatchObject({
        scope: 'topic',
        renewProducer: false,
      });
    }
  });

  it('renews the producer when its sequence state or its authentication is broken', () => {
    for (const type of [
      'OUT_OF_ORDER_SEQUENCE_NUMBER',
      'DUPLICATE_SEQUENCE_NUMBER',
      'INVALID_PRODUCER_EPOCH',
      'UNKNOWN_PRODUCER_ID',
      'INVALID_PRODUCER_ID_MAPPING',
      'CLUSTER_AUTHORIZATION_FAILED',
      'SASL_AUTHENTICATION_FAILED',
    ]) {
      expect(classifyPublishError(protocol(type))).toMatchObject({
        scope: 'batch',
        renewProducer: true,
      });
    }
    // kafkajs's typings declare no constructor argument; its class takes the message.
    const sasl = new (KafkaJSSASLAuthenticationError as unknown as new (message: string) => Error)(
      'SASL SCRAM SHA512 authentication failed',
    );
    expect(classifyPublishError(sasl)).toEqual({
      scope: 'batch',
      renewProducer: true,
      text: 'Publish failed: SASL SCRAM SHA512 authentication failed',
    });
  });

  it('fails the whole batch on a connection, timeout or leader problem, keeping the producer', () => {
    const cases = [
      new KafkaJSConnectionError('Connection error: connect ECONNREFUSED 127.0.0.1:9092'),
      new KafkaJSRequestTimeoutError('Request Produce(key: 0, version: 7) timed out'),
      protocol('NOT_LEADER_FOR_PARTITION', 'This server is not the leader', true),
      protocol(
        'NOT_ENOUGH_REPLICAS',
        'Messages are rejected since there are fewer in-sync replicas',
        true,
      ),
      new Error('something else'),
      'a thrown string',
    ];
    for (const error of cases) {
      expect(classifyPublishError(error)).toMatchObject({ scope: 'batch', renewProducer: false });
    }
    expect(classifyPublishError(cases[0]).text).toBe(
      'Publish failed: Connection error: connect ECONNREFUSED 127.0.0.1:9092',
    );
  });

  it('reads the broker’s answer under kafkajs’s retries-exceeded wrapper', () => {
    const wrapped = retried(
      protocol('MESSAGE_TOO_LARGE', 'The request included a message larger than the max'),
    );
    expect(rootCause(wrapped)).toBe((wrapped as { cause?: unknown }).cause);
    expect(classifyPublishError(wrapped)).toEqual({
      scope: 'record',
      renewProducer: false,
      text: 'Publish failed: The request included a message larger than the max (MESSAGE_TOO_LARGE)',
    });
    expect(
      classifyPublishError(retried(retried(protocol('OUT_OF_ORDER_SEQUENCE_NUMBER')))),
    ).toMatchObject({
      renewProducer: true,
    });
  });

  it('reads protocol errors by shape and sanitizes the text', () => {
    expect(protocolType(protocol('X'))).toBe('X');
    expect(protocolType(new Error('plain'))).toBeUndefined();
    expect(protocolType({ name: 'KafkaJSProtocolError', type: 'X' })).toBeUndefined();
    const leaky = new KafkaJSConnectionError('failed for sasl://user:secret@broker:9092');
    expect(classifyPublishError(leaky).text).not.toContain('secret');
  });
});

describe('connectUnanswered', () => {
  it('tells a handshake the broker never answered from a refused connection or credentials', () => {
    expect(connectUnanswered(new KafkaJSRequestTimeoutError('Request ApiVersions timed out'))).toBe(
      true,
    );
    expect(connectUnanswered(retried(new Error('Broker not connected')))).toBe(true);
    expect(connectUnanswered(new KafkaJSConnectionError('Connection timeout'))).toBe(true);
    expect(
      connectUnanswered(new KafkaJSConnectionError('connect ECONNREFUSED 127.0.0.1:9092')),
    ).toBe(false);
    expect(
      connectUnanswered(
        new (KafkaJSSASLAuthenticationError as unknown as new (message: string) => Error)(
          'SASL PLAIN authentication failed',
        ),
      ),
    ).toBe(false);
    expect(connectUnanswered(protocol('TOPIC_AUTHORIZATION_FAILED'))).toBe(false);
    expect(connectUnanswered('Broker not connected')).toBe(false);
  });
});

describe('a refusal kafkajs did not retry', () => {
  it('is read from inside KafkaJSNonRetriableError, so a refused topic fails only its own rows', () => {
    const refused = protocol('TOPIC_AUTHORIZATION_FAILED', 'Not authorized to access topics');
    const wrapped = new (
      KafkaJSNonRetriableError as unknown as new (error: Error, options: { cause: Error }) => Error
    )(refused, { cause: refused });
    expect(classifyPublishError(wrapped)).toEqual({
      scope: 'topic',
      renewProducer: false,
      text: 'Publish failed: Not authorized to access topics (TOPIC_AUTHORIZATION_FAILED)',
    });
  });
});
