/**
 * The `nats` destination and source keys (spec §6.4, §7.8, JetStream only), their rules and
 * their texts in docs/configuration.md, built from the kit `@queuebox/config` lends.
 */
import type {
  BrokerConfigBlock,
  ConfigKey,
  ConfigKit,
  ConfigPath,
  ConfigRules,
  ConfigValues,
  NatsDestinationConfig,
  NatsSourceConfig,
  OwnDestinationKeys,
  OwnSourceKeys,
} from '@queuebox/core';

/** User name and password go together; a token excludes a user name (spec §6.4). */
function checkCredentials(keys: ConfigValues, path: ConfigPath, rules: ConfigRules): void {
  const user = rules.display([...path, 'username']);
  const password = rules.display([...path, 'password']);
  const together = 'NATS takes the two together';
  if (keys.username !== null && keys.password === null)
    rules.add([...path, 'password'], `required because ${user} is set; ${together}`);
  if (keys.password !== null && keys.username === null)
    rules.add([...path, 'username'], `required because ${password} is set; ${together}`);
  if (keys.token !== null && keys.username !== null) {
    rules.add(
      [...path, 'token'],
      `cannot be combined with ${user}; NATS accepts one of them, so remove one`,
    );
  }
}

export function natsConfig(kit: ConfigKit): BrokerConfigBlock {
  const credentials = { username: kit.optText, password: kit.optSecret, token: kit.optSecret };
  const destination = {
    servers: kit.nonBlank,
    subject: kit.optText,
    subjectFrom: kit.addressFrom,
    jetStream: kit.bool(true),
    timeoutMs: kit.ms(30_000),
    ...credentials,
  } satisfies Record<OwnDestinationKeys<NatsDestinationConfig>, ConfigKey>;
  const source = {
    servers: kit.nonBlank,
    stream: kit.nonBlank,
    durable: kit.nonBlank,
    filterSubject: kit.optText,
    ackWaitMs: kit.ms(30_000),
    batchSize: kit.int(100, 1),
    ...credentials,
  } satisfies Record<OwnSourceKeys<NatsSourceConfig>, ConfigKey>;
  return {
    destination: {
      keys: destination,
      check: checkCredentials,
      docs: {
        servers: { rule: 'comma-separated URLs' },
        subject: {
          rule: 'name or address template',
          default: 'required unless `subjectFrom` is set',
        },
        subjectFrom: { rule: '`aggregate_type` | `topic` | `key`; wins over `subject`' },
        jetStream: { rule: '' },
        timeoutMs: { rule: '> 0' },
        username: { rule: 'set together', key: '`username` / `password`', type: 'string / secret' },
        password: null,
        token: { rule: 'not together with `username`' },
      },
    },
    source: { keys: source, check: checkCredentials },
  };
}
