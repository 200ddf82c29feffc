/** `destinations.<name>` (spec §6): `type` is required and selects the keys. */
import { transformBlock, destinationAuthBlock } from './schema-blocks.js';
import { kinded, mapOf } from './schema-kit.js';
import { bool, int, oneOf, optOneOf, optSecret, optStr, str, strMap } from './schema-scalars.js';

/** The row columns an address can be read from instead of a template (underscore spelling). */
export const ADDRESS_COLUMNS = ['aggregate_type', 'topic', 'key'] as const;
export const KAFKA_SECURITY_PROTOCOLS = ['PLAINTEXT', 'SSL', 'SASL_PLAINTEXT', 'SASL_SSL'] as const;

const common = { headers: strMap(), transform: transformBlock };

export const kafkaSecurity = {
  securityProtocol: oneOf(KAFKA_SECURITY_PROTOCOLS, 'PLAINTEXT'),
  saslMechanism: optStr(),
  saslUsername: optStr(),
  saslPassword: optSecret(),
};

export const natsCredentials = { username: optStr(), password: optSecret(), token: optSecret() };

export const destinationsMap = mapOf(
  kinded({
    http: {
      baseUrl: str(),
      path: str({ def: '/' }),
      timeoutMs: int({ def: 30_000, min: 1, ms: true }),
      auth: destinationAuthBlock,
      ...common,
    },
    rabbitmq: {
      url: str(),
      // Optional here because `exchangeFrom` wins; the rule "one of the two" is in the validator.
      exchange: optStr(),
      exchangeFrom: optOneOf(ADDRESS_COLUMNS),
      exchangeType: str({ def: 'topic' }),
      routingKeyTemplate: str({ def: '{{ topic }}' }),
      deliveryMode: oneOf(['persistent', 'transient'], 'persistent'),
      ...common,
    },
    kafka: {
      bootstrapServers: str(),
      topic: optStr(),
      topicFrom: optOneOf(ADDRESS_COLUMNS),
      keyTemplate: str({ def: '{{ key }}' }),
      timeoutMs: int({ def: 30_000, ms: true }),
      ...kafkaSecurity,
      ...common,
    },
    nats: {
      servers: str(),
      subject: optStr(),
      subjectFrom: optOneOf(ADDRESS_COLUMNS),
      jetStream: bool(true),
      timeoutMs: int({ def: 30_000, min: 1, ms: true }),
      ...natsCredentials,
      ...common,
    },
  }),
);
