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
import { outboxMessage, startHttpSink, type HttpSink } from '@queuebox/testing';
import { afterEach, beforeEach } from 'vitest';
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

/** A real HTTP sink for each test, and the publisher a test opens on it. */
export interface SinkPerTest {
  /** The current test's sink. */
  readonly sink: HttpSink;
  /** Keeps `publisher` to close after the test, before its sink; returns it. */
  keep<P extends Publisher>(publisher: P): P;
}

/** Opens a sink before each test; after it, closes the kept publisher, then the sink. */
export function sinkPerTest(): SinkPerTest {
  let sink: HttpSink | undefined;
  let publisher: Publisher | undefined;
  beforeEach(async () => {
    sink = await startHttpSink();
  });
  afterEach(async () => {
    await publisher?.close();
    publisher = undefined;
    await sink?.close();
  });
  return {
    get sink() {
      if (sink === undefined) throw new Error('The sink is open only while a test runs.');
      return sink;
    },
    keep(opened) {
      publisher = opened;
      return opened;
    },
  };
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
