/**
 * The `rabbitmq` destination and source keys (spec §6.2, §7.6), their rules and their texts in
 * docs/configuration.md, built from the kit `@queuebox/config` lends.
 */
import type {
  BrokerConfigBlock,
  ConfigKey,
  ConfigKit,
  OwnDestinationKeys,
  OwnSourceKeys,
  RabbitDestinationConfig,
  RabbitSourceConfig,
} from '@queuebox/core';

/** Whether `url` is an `amqp://` or `amqps://` URI with a host. */
export function isAmqpUri(url: string): boolean {
  const trimmed = url.trim();
  if (!/^amqps?:\/\//i.test(trimmed)) return false;
  try {
    return new URL(trimmed).hostname !== '';
  } catch {
    return false;
  }
}

const amqpUriProblem = (url: string): string | undefined =>
  url.trim() === ''
    ? 'must not be blank'
    : isAmqpUri(url)
      ? undefined
      : 'is not a valid AMQP URI (amqp://host or amqps://host); the value is not printed because it can hold a password';

const trimmed = (value: unknown): string => (value as string).trim();

export function rabbitmqConfig(kit: ConfigKit): BrokerConfigBlock {
  const destination = {
    url: kit.checkedText(amqpUriProblem),
    // Optional here because `exchangeFrom` wins; "one of the two" is a destination rule.
    exchange: kit.optText,
    exchangeFrom: kit.addressFrom,
    exchangeType: kit.nonBlankStr('topic'),
    routingKeyTemplate: kit.str('{{ topic }}'),
    deliveryMode: kit.oneOf(['persistent', 'transient'], 'persistent'),
  } satisfies Record<OwnDestinationKeys<RabbitDestinationConfig>, ConfigKey>;
  const source = {
    queueName: kit.nonBlank,
    connectionUrl: kit.checkedText(amqpUriProblem),
    prefetchCount: kit.int(10, 1),
    declareQueue: kit.bool(false),
  } satisfies Record<OwnSourceKeys<RabbitSourceConfig>, ConfigKey>;
  return {
    destination: {
      keys: destination,
      assemble: (block) => ({ url: trimmed(block.url) }),
      docs: {
        url: { rule: '`amqp://` or `amqps://` URI with a host (never printed)' },
        exchange: {
          rule: 'name or address template',
          default: 'required unless `exchangeFrom` is set',
        },
        exchangeFrom: { rule: '`aggregate_type` | `topic` | `key`; wins over `exchange`' },
        exchangeType: { rule: 'non-blank; passed to the broker as is' },
        routingKeyTemplate: { rule: 'used when the route sets none' },
        deliveryMode: { rule: '`persistent` | `transient`' },
      },
    },
    source: {
      keys: source,
      assemble: (block) => ({ connectionUrl: trimmed(block.connectionUrl) }),
    },
  };
}
