/**
 * Why a source's consumer cannot start, when the broker refused it rather than failed to answer:
 * an ACL that keeps the user from the topics (TOPIC_AUTHORIZATION_FAILED) or from the consumer
 * group (GROUP_AUTHORIZATION_FAILED), or credentials it does not take. kafkajs's own text for the
 * first ("Not authorized to access topics: [Topic authorization failed]") names neither the topics
 * nor the user, and "cannot reach Kafka" would send the operator to the network: the text names
 * what was refused, to whom, and what the broker needs.
 */
import type { KafkaSourceConfig } from '@queuebox/core';
import { errorText } from '../connection.js';
import { protocolType, rootCause } from '../publisher/publish-failure.js';

export function consumeRefusal(
  source: string,
  config: KafkaSourceConfig,
  error: unknown,
): string | undefined {
  const root = rootCause(error);
  const type = protocolType(root);
  const user =
    config.saslUsername === null ? 'the anonymous user' : `user '${config.saslUsername}'`;
  if (type === 'TOPIC_AUTHORIZATION_FAILED') {
    const topics = config.topics.map((topic) => `'${topic}'`).join(', ');
    return `Source '${source}' is not authorized to read topic ${topics} as ${user} (TOPIC_AUTHORIZATION_FAILED): the broker's ACLs must allow READ and DESCRIBE on it.`;
  }
  if (type === 'GROUP_AUTHORIZATION_FAILED') {
    return `Source '${source}' is not authorized to use consumer group '${config.groupId}' as ${user} (GROUP_AUTHORIZATION_FAILED): the broker's ACLs must allow READ on the group.`;
  }
  if (root instanceof Error && root.name === 'KafkaJSSASLAuthenticationError') {
    return `Source '${source}' is not authorized: the broker refused the credentials of ${user}. Reason: ${errorText(root)}`;
  }
  return undefined;
}
