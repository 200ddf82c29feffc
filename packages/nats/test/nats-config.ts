/**
 * Configurations and publish requests for the NATS tests: a destination and a source with the
 * defaults the configuration loader fills in, a claimed outbox row as the poller hands it over,
 * and the server URL rewritten to go through a fault proxy.
 */
import type {
  NatsDestinationConfig,
  NatsSourceConfig,
  OutboxMessage,
  PublishRequest,
} from '@queuebox/core';
import {
  claimedOutboxRow,
  natsDestination as sharedNatsDestination,
  natsSource as sharedNatsSource,
  publishRequest as sharedPublishRequest,
  type FaultProxy,
} from '@queuebox/testing';

export { claimedOutboxRow as outboxMessage, destinations } from '@queuebox/testing';

export function natsDestination(
  servers: string,
  overrides: Partial<NatsDestinationConfig> = {},
): NatsDestinationConfig {
  // The shared fixture with a subject no stream takes, so a test that forgets its own fails.
  return sharedNatsDestination({ servers, subject: 'unused', ...overrides });
}

export function natsSource(overrides: Partial<NatsSourceConfig> = {}): NatsSourceConfig {
  // The shared fixture with a stream no test creates, so a test that forgets its own fails.
  return sharedNatsSource({ stream: 'UNUSED', ...overrides });
}

/** A publish to `subject`: NATS takes no routing key. */
export function publishRequest(
  destination: string,
  subject: string | null,
  message: OutboxMessage = claimedOutboxRow(),
  signal?: AbortSignal,
): PublishRequest {
  return sharedPublishRequest(destination, subject, null, message, signal);
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
