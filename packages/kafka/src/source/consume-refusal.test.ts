import { Secret } from '@queuebox/core';
import { kafkaSource } from '@queuebox/testing';
import kafkajs from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { consumeRefusal } from './consume-refusal.js';

const { KafkaJSConnectionError, KafkaJSProtocolError } = kafkajs;
const { KafkaJSSASLAuthenticationError } = kafkajs;

const protocol = (type: string) =>
  new KafkaJSProtocolError({ message: `broker says ${type}`, type, code: 1 } as never);

const config = kafkaSource({
  topics: ['payments', 'refunds'],
  groupId: 'queuebox-payments',
  saslUsername: 'alice',
  saslMechanism: 'PLAIN',
  saslPassword: new Secret('x'),
});

describe('consumeRefusal', () => {
  it('names the topics, the user and the code of a topic the ACLs keep from the user', () => {
    expect(consumeRefusal('p', config, protocol('TOPIC_AUTHORIZATION_FAILED'))).toBe(
      "Source 'p' is not authorized to read topic 'payments', 'refunds' as user 'alice' (TOPIC_AUTHORIZATION_FAILED): the broker's ACLs must allow READ and DESCRIBE on it.",
    );
  });

  it('names the consumer group of a group refusal, and the anonymous user without SASL', () => {
    const plain = kafkaSource({ groupId: 'g1' });
    expect(consumeRefusal('p', plain, protocol('GROUP_AUTHORIZATION_FAILED'))).toBe(
      "Source 'p' is not authorized to use consumer group 'g1' as the anonymous user (GROUP_AUTHORIZATION_FAILED): the broker's ACLs must allow READ on the group.",
    );
  });

  it('says the credentials were refused, with the reason', () => {
    const text = consumeRefusal(
      'p',
      config,
      new (KafkaJSSASLAuthenticationError as unknown as new (message: string) => Error)(
        'SASL PLAIN authentication failed: bad password',
      ),
    );
    expect(text).toMatch(
      /^Source 'p' is not authorized: the broker refused the credentials of user 'alice'\. Reason: .*bad password/,
    );
  });

  it('leaves a network failure and another broker error to the text of an unreachable broker', () => {
    expect(consumeRefusal('p', config, new KafkaJSConnectionError('Connection error'))).toBe(
      undefined,
    );
    expect(consumeRefusal('p', config, protocol('UNKNOWN_TOPIC_OR_PARTITION'))).toBe(undefined);
  });
});
