/**
 * What the SASL refusal tests share: the local 4.x broker's SASL_PLAINTEXT listener
 * (QUEUEBOX_TEST_KAFKA_SASL_BROKERS, printed by `pnpm kafka:start`) with the PLAIN users alice
 * and bob, skipped with the reason where it is not found (a failure where QUEUEBOX_TEST_REQUIRE
 * names kafka), and an ACL that lets only bob do one operation on a topic.
 */
import { brokerAddress, portOpen, requireService, serviceRequired } from '@queuebox/testing';
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
  const saslBrokers = kafka.available ? await saslBrokersBeside(kafka.url) : '';
  if (kafka.available && saslBrokers === '') {
    const reason = `QUEUEBOX_TEST_KAFKA_SASL_BROKERS is not set, and no SASL listener answers where \`pnpm kafka:start\` puts one: ${kafka.url}'s port + 2, looked for on 127.0.0.1 only`;
    if (serviceRequired('kafka')) throw new Error(`${suite}: ${reason}`);
    console.warn(`SKIPPED ${suite}: ${reason}`);
  }
  return {
    ready: kafka.available && saslBrokers !== '',
    brokers: kafka.available ? kafka.url : '',
    saslBrokers,
  };
}

/**
 * The SASL listener: the variable where it is set, else the port `pnpm kafka:start` gives it (the
 * plain listener's + 2) on a local broker where something answers there, so the broker's own
 * address is all a developer has to name.
 */
async function saslBrokersBeside(brokers: string): Promise<string> {
  const given = process.env.QUEUEBOX_TEST_KAFKA_SASL_BROKERS ?? '';
  if (given !== '') return given;
  const { host, port } = brokerAddress(brokers);
  if (host !== '127.0.0.1') return '';
  return (await portOpen(host, port + 2)) ? `${host}:${port + 2}` : '';
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
