import { describe, expect, it } from 'vitest';
import {
  broker,
  providers,
  type BrokerProviderModule,
  type ProviderRegistry,
} from '../providers.js';
import { checkOffline } from './offline-check.js';

// A specifier the compiler cannot see, as a package left out of the install is to Node.
const ABSENT = '@queuebox/absent-broker';

const env = {
  QUEUEBOX_DATABASE_URL: 'jdbc:postgresql://127.0.0.1:9/unused',
  QUEUEBOX_DATABASE_USERNAME: 'queuebox',
  QUEUEBOX_DATABASE_PASSWORD: 'unused',
  QUEUEBOX_DESTINATIONS_EVENTS_TYPE: 'kafka',
  QUEUEBOX_DESTINATIONS_EVENTS_BOOTSTRAPSERVERS: '127.0.0.1:9',
  QUEUEBOX_DESTINATIONS_EVENTS_TOPIC: 'events',
  QUEUEBOX_DESTINATIONS_EVENTS_TRANSFORM_EXPRESSION: '(',
  QUEUEBOX_DESTINATIONS_MQ_TYPE: 'rabbitmq',
  QUEUEBOX_DESTINATIONS_MQ_URL: 'amqp://127.0.0.1:9',
  QUEUEBOX_DESTINATIONS_MQ_EXCHANGE: 'events',
  QUEUEBOX_DESTINATIONS_MQ_TRANSFORM_EXPRESSION: '$$$(',
};

describe('config check with a broker package missing from the install', () => {
  it('names the missing package and still runs the routing check on the other brokers', async () => {
    const registry: ProviderRegistry = {
      ...providers,
      kafka: broker(ABSENT, () => import(ABSENT) as Promise<BrokerProviderModule>),
    };
    const { problems } = await checkOffline(env, registry);
    expect(problems[0]).toMatch(
      /^The provider 'kafka' is missing: add the package @queuebox\/absent-broker to the QueueBox runtime install\. Reason: /,
    );
    expect(problems.slice(1)).toEqual([
      expect.stringMatching(
        /^destinations\.events\.transform\.expression: the JSONata expression does not compile: /,
      ),
      expect.stringMatching(
        /^destinations\.mq\.transform\.expression: the JSONata expression does not compile: /,
      ),
    ]);
  });
});
