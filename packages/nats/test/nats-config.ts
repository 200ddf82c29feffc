/**
 * Configurations and publish requests for the NATS tests: a destination and a source with the
 * defaults the configuration loader fills in, a claimed outbox row as the poller hands it over,
 * and the server URL rewritten to go through a fault proxy.
 */
import { randomUUID } from 'node:crypto';
import {
  JsonPayload,
  type AppConfig,
  type NatsDestinationConfig,
  type NatsSourceConfig,
  type OutboxMessage,
  type PublishRequest,
} from '@queuebox/core';
import { natsSource as sharedNatsSource, type FaultProxy } from '@queuebox/testing';

export function natsDestination(
  servers: string,
  overrides: Partial<NatsDestinationConfig> = {},
): NatsDestinationConfig {
  return {
    type: 'nats',
    servers,
    subject: 'unused',
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

export function natsSource(overrides: Partial<NatsSourceConfig> = {}): NatsSourceConfig {
  // The shared fixture with a stream no test creates, so a test that forgets its own fails.
  return sharedNatsSource({ stream: 'UNUSED', ...overrides });
}

export function destinations(
  entries: Record<string, NatsDestinationConfig>,
): Pick<AppConfig, 'destinations'> {
  return { destinations: entries };
}

export function outboxMessage(overrides: Partial<OutboxMessage> = {}): OutboxMessage {
  return {
    id: randomUUID(),
    topic: 'order.created',
    key: null,
    aggregateType: null,
    payload: JsonPayload.fromText('{"n": 1}'),
    headers: {},
    state: 'processing',
    attempt: 0,
    maxAttempts: 5,
    scheduledAt: new Date(),
    createdAt: new Date(),
    sequence: null,
    lastError: null,
    ...overrides,
  };
}

export function publishRequest(
  destination: string,
  subject: string | null,
  message: OutboxMessage = outboxMessage(),
  signal: AbortSignal = new AbortController().signal,
): PublishRequest {
  return {
    message,
    destination,
    payload: message.payload,
    routingKey: null,
    address: subject,
    signal,
  };
}

/** Host and port of a NATS server URL, for the fault proxy's target. */
export function serverAddress(url: string): { host: string; port: number } {
  const parsed = new URL(url);
  return { host: parsed.hostname, port: Number(parsed.port || 4222) };
}

/** The server URL with its host and port replaced by the proxy's. */
export function viaProxy(proxy: FaultProxy): string {
  return `nats://${proxy.host}:${proxy.port}`;
}
