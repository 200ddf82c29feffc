/** Builds `SourceConfig` with the per-kind defaults of spec §7.1 (topic, idempotency key path). */
import type { HeaderFilterConfig, HeaderFilterRule, SourceConfig } from '@queuebox/core';
import { inboundAuth, transform } from './assemble-blocks.js';
import type { RawSource } from './schema/config.js';
import { defaultSourceTopic } from './rules/sources.js';
import { parseDuration } from './values.js';

/** Broker sources fall back to `$.id`; an HTTP source must name its key itself (spec §20 item 22). */
const BROKER_KEY_PATH = ['$.id'];

export function assembleSource(raw: RawSource): SourceConfig {
  const common = {
    consumption: raw.consumption,
    topic: raw.topic ?? defaultSourceTopic(raw.type),
    idempotencyKeyPath: raw.idempotencyKeyPath ?? (raw.type === 'http' ? [] : BROKER_KEY_PATH),
    aggregateIdPath: raw.aggregateIdPath ?? [],
    eventTypePath: raw.eventTypePath ?? [],
    idempotencyKeyExpression: raw.idempotencyKeyExpression,
    aggregateIdExpression: raw.aggregateIdExpression,
    eventTypeExpression: raw.eventTypeExpression,
    initialDelayMs: raw.initialDelay === null ? 0 : (parseDuration(raw.initialDelay) ?? 0),
    scheduledAtHeader: raw.scheduledAtHeader,
    scheduledAtPath: raw.scheduledAtPath ?? [],
    transform: transform(raw.transform),
    filter: raw.filter === null ? null : filter(raw.filter),
  };
  switch (raw.type) {
    case 'http':
      return {
        ...common,
        type: 'http',
        path: raw.path,
        idempotencyKeyHeader: raw.idempotencyKeyHeader,
        eventTypeHeader: raw.eventTypeHeader,
        aggregateIdHeader: raw.aggregateIdHeader,
        auth: inboundAuth(raw.auth),
        rateLimit: raw.rateLimit,
      };
    case 'rabbitmq':
      return {
        ...common,
        type: 'rabbitmq',
        eventTypeFromHeader: raw.eventTypeFromHeader,
        attributeHeaders: raw.attributeHeaders,
        queueName: raw.queueName,
        connectionUrl: raw.connectionUrl.trim(),
        prefetchCount: raw.prefetchCount,
        declareQueue: raw.declareQueue,
      };
    case 'kafka':
      return {
        ...common,
        type: 'kafka',
        eventTypeFromHeader: raw.eventTypeFromHeader,
        attributeHeaders: raw.attributeHeaders,
        bootstrapServers: raw.bootstrapServers,
        topics: raw.topics ?? [],
        groupId: raw.groupId,
        autoOffsetReset: raw.autoOffsetReset,
        maxPollRecords: raw.maxPollRecords,
        securityProtocol: raw.securityProtocol,
        saslMechanism: raw.saslMechanism,
        saslUsername: raw.saslUsername,
        saslPassword: raw.saslPassword,
      };
    case 'nats':
      return {
        ...common,
        type: 'nats',
        eventTypeFromHeader: raw.eventTypeFromHeader,
        attributeHeaders: raw.attributeHeaders,
        servers: raw.servers,
        stream: raw.stream,
        durable: raw.durable,
        filterSubject: raw.filterSubject,
        ackWaitMs: raw.ackWaitMs,
        batchSize: raw.batchSize,
        username: raw.username,
        password: raw.password,
        token: raw.token,
      };
  }
}

type RawRule = NonNullable<RawSource['filter']>['require'][number];

function filter(raw: NonNullable<RawSource['filter']>): HeaderFilterConfig {
  return { require: raw.require.map(rule), exclude: raw.exclude.map(rule) };
}

function rule(raw: RawRule): HeaderFilterRule {
  const header = raw.header;
  if (raw.equals !== null) return { header, test: { kind: 'equals', value: raw.equals } };
  if (raw.in !== null) return { header, test: { kind: 'in', values: raw.in } };
  if (raw.matches !== null) return { header, test: { kind: 'matches', glob: raw.matches } };
  return { header, test: { kind: 'exists' } };
}
