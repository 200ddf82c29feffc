/** A RabbitMQ source configuration with the defaults the configuration loader fills in. */
import type { RabbitSourceConfig } from '@queuebox/core';
import { rabbitSource as sharedRabbitSource, type FaultProxy } from '@queuebox/testing';

export function rabbitSource(overrides: Partial<RabbitSourceConfig> = {}): RabbitSourceConfig {
  // The shared fixture with a queue no test declares, so a test that forgets its own fails.
  return sharedRabbitSource({ queueName: 'unused', ...overrides });
}

/** The broker's URL with its host and port replaced by the proxy's. */
export function viaProxy(url: string, proxy: FaultProxy): string {
  const parsed = new URL(url);
  parsed.hostname = proxy.host;
  parsed.port = String(proxy.port);
  return parsed.toString();
}

/** Host and port of an AMQP URL, for the fault proxy's target. */
export function brokerAddress(url: string): { host: string; port: number } {
  const parsed = new URL(url);
  return { host: parsed.hostname, port: Number(parsed.port || 5672) };
}
