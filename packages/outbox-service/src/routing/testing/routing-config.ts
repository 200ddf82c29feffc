/** Test fixtures: destinations and routes with the defaults of the configuration loader. */
import type {
  HttpDestinationConfig,
  KafkaDestinationConfig,
  NatsDestinationConfig,
  RabbitDestinationConfig,
  RouteConfig,
} from '@queuebox/core';

export function httpDestination(
  overrides: Partial<HttpDestinationConfig> = {},
): HttpDestinationConfig {
  return {
    type: 'http',
    baseUrl: 'http://receiver.example',
    path: '/',
    timeoutMs: 30_000,
    auth: null,
    headers: {},
    transform: null,
    ...overrides,
  };
}

export function rabbitDestination(
  overrides: Partial<RabbitDestinationConfig> = {},
): RabbitDestinationConfig {
  return {
    type: 'rabbitmq',
    url: 'amqp://localhost',
    exchange: 'events',
    exchangeFrom: null,
    exchangeType: 'topic',
    routingKeyTemplate: '{{ topic }}',
    deliveryMode: 'persistent',
    headers: {},
    transform: null,
    ...overrides,
  };
}

export function kafkaDestination(
  overrides: Partial<KafkaDestinationConfig> = {},
): KafkaDestinationConfig {
  return {
    type: 'kafka',
    bootstrapServers: 'localhost:9092',
    topic: 'events',
    topicFrom: null,
    keyTemplate: '{{ key }}',
    timeoutMs: 30_000,
    securityProtocol: 'PLAINTEXT',
    saslMechanism: null,
    saslUsername: null,
    saslPassword: null,
    headers: {},
    transform: null,
    ...overrides,
  };
}

export function natsDestination(
  overrides: Partial<NatsDestinationConfig> = {},
): NatsDestinationConfig {
  return {
    type: 'nats',
    servers: 'nats://localhost:4222',
    subject: 'events',
    subjectFrom: null,
    jetStream: true,
    timeoutMs: 30_000,
    username: null,
    password: null,
    token: null,
    headers: {},
    transform: null,
    ...overrides,
  };
}

export function route(
  topicPattern: string,
  destination: string,
  overrides: Partial<RouteConfig> = {},
): RouteConfig {
  return {
    topicPattern,
    destination,
    routingKeyTemplate: null,
    routingKeyMissingFieldDefault: '',
    transform: null,
    ...overrides,
  };
}
