/**
 * The `kafka` destination and source keys (spec §6.3, §7.7), their rules and their texts in
 * docs/configuration.md, built from the kit `@queuebox/config` lends.
 */
import type {
  BrokerConfigBlock,
  ConfigKey,
  ConfigKit,
  ConfigPath,
  ConfigRules,
  ConfigValues,
  KafkaDestinationConfig,
  KafkaSourceConfig,
  OwnDestinationKeys,
  OwnSourceKeys,
  Secret,
} from '@queuebox/core';

/** The smallest Kafka publish budget that leaves room for the request timeout (spec §6.3). */
const MINIMUM_TIMEOUT_MS = 2000;

/** A `SASL_*` protocol needs a mechanism, a user name and a password (spec §6.3). */
function checkSecurity(keys: ConfigValues, path: ConfigPath, rules: ConfigRules): void {
  const protocol = keys.securityProtocol as string;
  if (rules.has([...path, 'securityProtocol']) || !protocol.startsWith('SASL_')) return;
  const needs = `required by securityProtocol ${protocol}`;
  for (const [key, value] of [
    ['saslMechanism', keys.saslMechanism],
    ['saslUsername', keys.saslUsername],
    ['saslPassword', (keys.saslPassword as Secret | null)?.reveal() ?? null],
  ] as const) {
    if (rules.has([...path, key])) continue;
    if (value === null) rules.add([...path, key], needs);
    else rules.requireText([...path, key], value);
  }
}

export function kafkaConfig(kit: ConfigKit): BrokerConfigBlock {
  // Shared by destinations and sources; a `SASL_*` protocol needs the other three.
  const security = {
    securityProtocol: kit.oneOf(['PLAINTEXT', 'SSL', 'SASL_PLAINTEXT', 'SASL_SSL'], 'PLAINTEXT'),
    saslMechanism: kit.optText,
    saslUsername: kit.optText,
    saslPassword: kit.optSecret,
  };
  const destination = {
    bootstrapServers: kit.nonBlank,
    topic: kit.optText,
    topicFrom: kit.addressFrom,
    keyTemplate: kit.str('{{ key }}'),
    timeoutMs: kit.checkedMs(
      30_000,
      (value) => value >= MINIMUM_TIMEOUT_MS,
      `must be at least ${MINIMUM_TIMEOUT_MS}; the Kafka producer needs the delivery timeout to stay above the request timeout`,
    ),
    ...security,
  } satisfies Record<OwnDestinationKeys<KafkaDestinationConfig>, ConfigKey>;
  const source = {
    bootstrapServers: kit.nonBlank,
    topics: kit.nonEmptyList('topic'),
    groupId: kit.nonBlank,
    autoOffsetReset: kit.oneOf(['earliest', 'latest'], 'earliest'),
    maxPollRecords: kit.int(100, 1),
    ...security,
  } satisfies Record<OwnSourceKeys<KafkaSourceConfig>, ConfigKey>;
  return {
    destination: {
      keys: destination,
      check: checkSecurity,
      docs: {
        bootstrapServers: { rule: 'comma-separated, non-blank' },
        topic: { rule: 'name or address template', default: 'required unless `topicFrom` is set' },
        topicFrom: { rule: '`aggregate_type` | `topic` | `key`; wins over `topic`' },
        keyTemplate: { rule: '' },
        timeoutMs: { rule: '≥ 2000' },
        securityProtocol: { rule: '`PLAINTEXT` | `SSL` | `SASL_PLAINTEXT` | `SASL_SSL`' },
        saslMechanism: { rule: 'required by `SASL_*` (e.g. `SCRAM-SHA-512`)' },
        saslUsername: { rule: 'required by `SASL_*`' },
        saslPassword: { rule: 'required by `SASL_*`' },
      },
    },
    source: {
      keys: source,
      check: checkSecurity,
      assemble: (block) => ({ topics: block.topics ?? [] }),
    },
  };
}
