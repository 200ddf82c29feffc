/** `sources.<name>` (spec §7): `type` defaults to `http`; every kind shares the keys of §7.1. */
import { inboundAuthBlock, transformBlock } from './schema-blocks.js';
import { kafkaSecurity, natsCredentials } from './schema-destinations.js';
import { kinded, listOf, mapOf, optSection, section } from './schema-kit.js';
import { bool, int, oneOf, optBool, optStr, str, strList } from './schema-scalars.js';

const filterRule = section({
  header: str(),
  equals: optStr(),
  in: strList(),
  matches: optStr(),
  exists: optBool(),
});

/** Keys of §7.1. Per-kind defaults (`topic`, `idempotencyKeyPath`) are filled after validation. */
const shared = {
  consumption: oneOf(['push', 'pull'], 'push'),
  topic: optStr(),
  idempotencyKeyPath: strList(),
  aggregateIdPath: strList(),
  eventTypePath: strList(),
  idempotencyKeyExpression: optStr(),
  aggregateIdExpression: optStr(),
  eventTypeExpression: optStr(),
  initialDelay: optStr(),
  scheduledAtHeader: optStr(),
  scheduledAtPath: strList(),
  transform: transformBlock,
  filter: optSection({ require: listOf(filterRule), exclude: listOf(filterRule) }),
  // HTTP only; broker kinds accept the key and ignore it (spec §7.1).
  rateLimit: optSection({ requestsPerMinute: int({ min: 1 }) }),
};

const broker = {
  eventTypeFromHeader: bool(false),
  attributeHeaders: section({
    idempotencyKey: str({ def: 'x-idempotency-key' }),
    aggregateId: str({ def: 'x-aggregate-id' }),
    eventType: str({ def: 'x-event-type' }),
  }),
};

export const sourcesMap = mapOf(
  kinded(
    {
      http: {
        path: str(),
        idempotencyKeyHeader: optStr(),
        eventTypeHeader: optStr(),
        aggregateIdHeader: optStr(),
        auth: inboundAuthBlock,
        ...shared,
      },
      rabbitmq: {
        queueName: str(),
        connectionUrl: str(),
        prefetchCount: int({ def: 10, min: 1 }),
        declareQueue: bool(false),
        ...broker,
        ...shared,
      },
      kafka: {
        bootstrapServers: str(),
        topics: strList({ required: true, splitCommas: true }),
        groupId: str(),
        autoOffsetReset: oneOf(['earliest', 'latest'], 'earliest'),
        maxPollRecords: int({ def: 100, min: 1 }),
        ...kafkaSecurity,
        ...broker,
        ...shared,
      },
      nats: {
        servers: str(),
        stream: str(),
        durable: str(),
        filterSubject: optStr(),
        ackWaitMs: int({ def: 30_000, min: 1, ms: true }),
        batchSize: int({ def: 100, min: 1 }),
        ...natsCredentials,
        ...broker,
        ...shared,
      },
    },
    'http',
  ),
);
