/** Test helpers for the HTTP publisher (dev only; not exported by the package). */
import type {
  DestinationConfig,
  HeaderEntry,
  JsonPayload,
  Logger,
  OutboxMessage,
  PublishOutcome,
  Publisher,
} from '@queuebox/core';
import { outboxMessage } from '@queuebox/testing';
import { createHttpPublisher } from '../src/http/http-publisher.js';
import type { HttpStatusClass } from '../src/http/status-class.js';

export interface TestPublisherOptions {
  readonly maxErrorBodyBytes?: number;
  readonly connections?: number;
  readonly logger?: Logger;
  readonly onResponse?: (statusClass: HttpStatusClass) => void;
}

export function testPublisher(
  destinations: Record<string, DestinationConfig>,
  options: TestPublisherOptions = {},
): Publisher {
  return createHttpPublisher({
    config: {
      destinations,
      http: { maxErrorBodyBytes: options.maxErrorBodyBytes ?? 2048, blockPrivateAddresses: false },
      outbox: { concurrency: 4 },
    },
    ...(options.connections === undefined ? {} : { connections: options.connections }),
    ...(options.logger === undefined ? {} : { logger: options.logger }),
    ...(options.onResponse === undefined ? {} : { onResponse: options.onResponse }),
  });
}

export function send(
  target: Publisher,
  message: OutboxMessage = outboxMessage(),
  options: {
    destination?: string;
    payload?: JsonPayload;
    signal?: AbortSignal;
    traceHeaders?: readonly HeaderEntry[];
  } = {},
): Promise<PublishOutcome> {
  return target.publish({
    message,
    destination: options.destination ?? 'receiver',
    payload: options.payload ?? message.payload,
    routingKey: null,
    address: null,
    signal: options.signal ?? new AbortController().signal,
    ...(options.traceHeaders === undefined ? {} : { traceHeaders: options.traceHeaders }),
  });
}

/** Raw header pairs with the given name (case-insensitive), as sent over the wire. */
export function rawValues(raw: readonly string[], name: string): string[] {
  const values: string[] = [];
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i]?.toLowerCase() === name.toLowerCase()) values.push(raw[i + 1] ?? '');
  }
  return values;
}
