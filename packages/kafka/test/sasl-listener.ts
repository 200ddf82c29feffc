/**
 * What the SASL refusal tests share: the local 4.x broker's SASL_PLAINTEXT listener
 * (QUEUEBOX_TEST_KAFKA_SASL_BROKERS, printed by `pnpm kafka:start`) with the PLAIN users alice
 * and bob, skipped with the reason where it is not given (a failure where QUEUEBOX_TEST_REQUIRE
 * names kafka), and an ACL that lets only bob do one operation on a topic.
 */
import { requireService, serviceRequired } from '@queuebox/testing';
import kafkajs from 'kafkajs';

const { AclOperationTypes, AclPermissionTypes, AclResourceTypes, ResourcePatternTypes } = kafkajs;

export interface SaslListener {
  readonly ready: boolean;
  /** The plain listener (for the admin and the kit) and the SASL one. */
  readonly brokers: string;
  readonly saslBrokers: string;
}

export async function saslListener(suite: string): Promise<SaslListener> {
  const kafka = await requireService('kafka', suite);
  const saslBrokers = process.env.QUEUEBOX_TEST_KAFKA_SASL_BROKERS ?? '';
  if (kafka.available && saslBrokers === '') {
    const reason = 'QUEUEBOX_TEST_KAFKA_SASL_BROKERS is not set (pnpm kafka:start prints it)';
    if (serviceRequired('kafka')) throw new Error(`${suite}: ${reason}`);
    console.warn(`SKIPPED ${suite}: ${reason}`);
  }
  return {
    ready: kafka.available && saslBrokers !== '',
    brokers: kafka.available ? kafka.url : '',
    saslBrokers,
  };
}

/** An ACL letting only `User:bob` do `operation` on `topic`; `remove()` takes it away. */
export async function onlyBob(
  brokers: string,
  topic: string,
  operation: 'READ' | 'WRITE',
): Promise<{ remove(): Promise<void> }> {
  const admin = new kafkajs.Kafka({
    clientId: 'qb-sasl-admin',
    brokers: brokers.split(','),
    logLevel: kafkajs.logLevel.NOTHING,
  }).admin();
  await admin.connect();
  const acl = {
    resourceType: AclResourceTypes.TOPIC,
    resourceName: topic,
    resourcePatternType: ResourcePatternTypes.LITERAL,
    principal: 'User:bob',
    host: '*',
    operation: AclOperationTypes[operation],
    permissionType: AclPermissionTypes.ALLOW,
  };
  await admin.createAcls({ acl: [acl] });
  return {
    async remove() {
      await admin.deleteAcls({ filters: [acl] }).catch(() => undefined);
      await admin.disconnect();
    },
  };
}
