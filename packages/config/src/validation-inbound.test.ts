import { describe, expect, it } from 'vitest';
import { loadConfig } from '../test/brokers.js';
import { DB_ENV, problems } from '../test/load.js';

/** An HTTP pull source (so the topic rule stays quiet) with extra keys. */
const http = (extra: string): string =>
  `sources:\n  s: {path: /s, consumption: pull, idempotencyKeyPath: $.id, ${extra}}\n`;

describe('JSONPath keys (spec §7.1)', () => {
  it('refuses an indefinite path', () => {
    expect(problems(http('aggregateIdPath: $..id'))).toEqual([
      "sources.s.aggregateIdPath: '$..id' is not a definite JSONPath: the deep scan '..' matches any number of nodes, so QueueBox cannot read one value from it; use a definite path such as '$.data.id'",
    ]);
    expect(problems(http('eventTypePath: [$.type, "$.items[*].type"]'))).toHaveLength(1);
  });

  it('refuses invalid syntax and an empty list', () => {
    expect(problems(http('eventTypePath: "$.a["'))).toEqual([
      "sources.s.eventTypePath: '$.a[' is not a valid JSONPath: the '[' at position 4 is not closed",
    ]);
    expect(problems(http('aggregateIdPath: []'))).toEqual([
      'sources.s.aggregateIdPath: the list must not be empty; remove the key or name at least one JSONPath',
    ]);
  });
});

describe('source names (spec §3.3)', () => {
  it('refuses a name longer than the 255-character source column, counted in characters', () => {
    const source = (name: string) =>
      `sources:\n  "${name}": {path: /s, consumption: pull, idempotencyKeyPath: $.id}\n`;
    expect(problems(source('😀'.repeat(255)))).toEqual([]);
    const long = 'x'.repeat(256);
    expect(problems(source(long))).toEqual([
      `sources.${long}: the source name is 256 characters long; the inbox stores it in a 255-character column, so use at most 255`,
    ]);
    expect(problems(source('a\\0b'))).toEqual([
      'sources.a\u0000b: the source name holds a NUL character or half of a surrogate pair, which the inbox cannot store; rename the source',
    ]);
  });
});

describe('HTTP sources (spec §7.2, §7.5)', () => {
  it('needs one of idempotencyKeyPath, idempotencyKeyHeader, idempotencyKeyExpression', () => {
    expect(problems('sources:\n  s: {path: /s, consumption: pull}')).toEqual([
      'sources.s: has no idempotency key; set sources.s.idempotencyKeyPath to a JSONPath in the body, sources.s.idempotencyKeyHeader to a request header, or sources.s.idempotencyKeyExpression to a JSONata expression',
    ]);
    expect(
      problems('sources:\n  s: {path: /s, consumption: pull, idempotencyKeyHeader: X-Id}'),
    ).toEqual([]);
    expect(
      problems('sources:\n  s: {path: /s, consumption: pull, idempotencyKeyExpression: "id"}'),
    ).toEqual([]);
  });

  it('reports a missing key and a blank key header together', () => {
    expect(problems('sources:\n  s: {path: /s, consumption: pull, eventTypeHeader: " "}')).toEqual([
      'sources.s: has no idempotency key; set sources.s.idempotencyKeyPath to a JSONPath in the body, sources.s.idempotencyKeyHeader to a request header, or sources.s.idempotencyKeyExpression to a JSONata expression',
      'sources.s.eventTypeHeader: must not be blank',
    ]);
  });

  it('refuses key headers that QueueBox never stores', () => {
    expect(
      problems(
        http(
          'idempotencyKeyHeader: authorization, eventTypeHeader: X-Api-Key, aggregateIdHeader: Cookie, auth: {type: api-key, key: k}',
        ),
      ),
    ).toEqual([
      "sources.s.idempotencyKeyHeader: 'authorization' names a credential header, which QueueBox never stores, so the value would never be found; name another header",
      "sources.s.eventTypeHeader: 'X-Api-Key' is the header that sources.s.auth.headerName reads, which QueueBox never stores, so the value would never be found; name another header",
      "sources.s.aggregateIdHeader: 'Cookie' names a credential header, which QueueBox never stores, so the value would never be found; name another header",
    ]);
  });

  it('refuses two HTTP sources on one path', () => {
    expect(
      problems(
        'sources:\n  a: {path: /x, consumption: pull, idempotencyKeyPath: $.id}\n  b: {path: /x, consumption: pull, idempotencyKeyPath: $.id}',
      ),
    ).toEqual([
      "sources.b.path: '/x' is already the path of source 'a'; each HTTP source needs its own path",
    ]);
  });

  it('needs an event-type source when a push topic uses eventType', () => {
    const push = 'sources:\n  s: {path: /s, idempotencyKeyPath: $.id}';
    expect(problems(push)).toEqual([
      "sources.s.topic: the topic template '{{ eventType }}' uses eventType, but source 's' has no event type, so the relay would mark every message dead; set sources.s.eventTypePath, sources.s.eventTypeHeader or sources.s.eventTypeExpression, or write a topic template without eventType",
    ]);
    expect(
      problems('sources:\n  s: {path: /s, idempotencyKeyPath: $.id, eventTypeHeader: X-Event}'),
    ).toEqual([]);
    expect(
      problems('sources:\n  s: {path: /s, idempotencyKeyPath: $.id, topic: "in.{{ source }}"}'),
    ).toEqual([]);
    expect(problems('sources:\n  s: {path: /s, idempotencyKeyPath: $.id, topic: " "}')).toEqual([
      'sources.s.topic: must not be blank',
    ]);
  });

  it('checks the rate limit', () => {
    expect(problems(http('rateLimit: {requestsPerMinute: 0}'))).toEqual([
      'sources.s.rateLimit.requestsPerMinute: must be greater than 0',
    ]);
  });
});

describe('delays (spec §7.1)', () => {
  it('reads whole durations and refuses the rest', () => {
    expect(problems(http('initialDelay: "30"'))).toEqual([
      "sources.s.initialDelay: '30' is not a duration; write a whole number followed by s, m, h or d, such as 30s",
    ]);
    expect(problems(http('initialDelay: -5s'))).toHaveLength(1);
    expect(problems(http('initialDelay: 24856d'))).toEqual([
      "sources.s.initialDelay: '24856d' is too long; the longest delay is 2147483647 seconds",
    ]);
  });

  it('needs a delay greater than 0 for a publish time', () => {
    expect(problems(http('scheduledAtHeader: X-Published, scheduledAtPath: $.at'))).toEqual([
      'sources.s.scheduledAtHeader: needs sources.s.initialDelay greater than 0; a publish time only shifts when a delayed message is released',
      'sources.s.scheduledAtPath: needs sources.s.initialDelay greater than 0; a publish time only shifts when a delayed message is released',
    ]);
    expect(problems(http('scheduledAtHeader: X-Published, initialDelay: 0s'))).toHaveLength(1);
    expect(problems(http('scheduledAtHeader: X-Published, initialDelay: 5m'))).toEqual([]);
  });
});

describe('header filter (spec §7.3)', () => {
  it('needs a header and exactly one test per rule', () => {
    expect(
      problems(
        http(
          'filter: {require: [{header: X-A, equals: a, in: [a]}, {header: X-B}, {header: " ", exists: true}], exclude: [{header: X-C, exists: false}]}',
        ),
      ),
    ).toEqual([
      'sources.s.filter.require[0]: must set exactly one of equals, in, matches or exists, but it sets equals, in',
      'sources.s.filter.require[1]: must set exactly one of equals, in, matches or exists, but it sets none',
      'sources.s.filter.require[2].header: must not be blank',
      "sources.s.filter.exclude[0].exists: false is not allowed; put an 'exists: true' rule under 'exclude' instead",
    ]);
  });

  it('refuses an empty in list and a blank or broken matches glob', () => {
    expect(
      problems(
        http(
          'filter: {require: [{header: X-A, in: []}, {header: X-B, matches: ""}, {header: X-C, matches: "a.***"}]}',
        ),
      ),
    ).toEqual([
      'sources.s.filter.require[0].in: the list must not be empty',
      'sources.s.filter.require[1].matches: must not be blank',
      "sources.s.filter.require[2].matches: 'a.***' holds '***'; use '*' for one segment and '**' for any text",
    ]);
  });
});

describe('inbound auth (spec §16.1)', () => {
  it('needs non-blank credentials', () => {
    expect(problems(http('auth: {type: bearer, token: ""}'))).toEqual([
      'sources.s.auth.token: must not be blank',
    ]);
    expect(problems(http('auth: {type: api-key, key: " ", headerName: ""}'))).toEqual([
      'sources.s.auth.key: must not be blank',
      'sources.s.auth.headerName: must not be blank',
    ]);
  });

  it('refuses TIMESTAMP_DOT_BODY without a timestamp header and an unknown algorithm', () => {
    expect(
      problems(
        http(
          'auth: {type: hmac, secret: s, algorithm: HmacSHA1, signaturePayloadFormat: TIMESTAMP_DOT_BODY}',
        ),
      ),
    ).toEqual([
      "sources.s.auth.algorithm: 'HmacSHA1' is not one of HmacSHA256, HmacSHA512",
      'sources.s.auth.signaturePayloadFormat: TIMESTAMP_DOT_BODY needs sources.s.auth.timestampHeader; every request would fail with a missing timestamp header, so set the timestamp header or use BODY',
    ]);
  });

  it('accepts both spellings of the payload format and normalises them', () => {
    const load = (format: string) =>
      loadConfig({
        env: DB_ENV,
        readFile: () =>
          http(
            `auth: {type: hmac, secret: s, timestampHeader: X-Ts, signaturePayloadFormat: ${format}}`,
          ),
      }).sources.s;
    expect(load('timestamp-dot-body')).toMatchObject({
      auth: { signaturePayloadFormat: 'TIMESTAMP_DOT_BODY' },
    });
    expect(load('body')).toMatchObject({
      auth: { signaturePayloadFormat: 'BODY', timestampToleranceMs: 300_000 },
    });
    expect(problems(http('auth: {type: hmac, secret: s, signaturePayloadFormat: Body}'))).toEqual([
      "sources.s.auth.signaturePayloadFormat: 'Body' is not one of BODY, TIMESTAMP_DOT_BODY, body, timestamp-dot-body; the value is case-sensitive, write BODY",
    ]);
  });

  it('reports an auth block with an unknown kind', () => {
    expect(problems(http('auth: {type: beare, token: t}'))).toEqual([
      'sources.s.auth.type: unknown type beare; did you mean bearer?',
    ]);
  });
});

describe('broker sources (spec §7.6–7.8)', () => {
  it('defaults the broker key path and topic, and checks the event-type source of a push topic', () => {
    expect(
      problems(
        'sources:\n  r: {type: rabbitmq, queueName: q, connectionUrl: "amqp://r", topic: "{{ eventType }}"}',
      ),
    ).toEqual([
      "sources.r.topic: the topic template '{{ eventType }}' uses eventType, but source 'r' has no event type, so the relay would mark every message dead; set sources.r.eventTypePath or sources.r.eventTypeExpression, or set sources.r.eventTypeFromHeader to true when every publisher sets the 'x-event-type' header, or write a topic template without eventType",
    ]);
    expect(
      problems(
        'sources:\n  r: {type: rabbitmq, queueName: q, connectionUrl: "amqp://r", topic: "{{ eventType }}", eventTypeFromHeader: true}',
      ),
    ).toEqual([]);
  });

  it('checks RabbitMQ keys without printing the URI', () => {
    expect(
      problems(
        'sources:\n  r: {type: rabbitmq, queueName: " ", connectionUrl: "not a uri with hunter2", prefetchCount: 0}',
      ),
    ).toEqual([
      'sources.r.prefetchCount: must be greater than 0',
      'sources.r.queueName: must not be blank',
      'sources.r.connectionUrl: is not a valid AMQP URI (amqp://host or amqps://host); the value is not printed because it can hold a password',
    ]);
  });

  it('checks Kafka keys', () => {
    expect(
      problems('sources:\n  k: {type: kafka, bootstrapServers: "k:9092", groupId: g, topics: []}'),
    ).toEqual(['sources.k.topics: the list must not be empty']);
    expect(
      problems(
        'sources:\n  k: {type: kafka, bootstrapServers: "k:9092", groupId: " ", topics: [a, " "], autoOffsetReset: newest, maxPollRecords: 0}',
      ),
    ).toEqual([
      "sources.k.autoOffsetReset: 'newest' is not one of earliest, latest",
      'sources.k.maxPollRecords: must be greater than 0',
      'sources.k.topics: must not hold a blank topic',
      'sources.k.groupId: must not be blank',
    ]);
    expect(problems('sources:\n  k: {type: kafka, bootstrapServers: "k:9092"}')).toEqual([
      'sources.k.topics: required; set it in the YAML file or with QUEUEBOX_SOURCES_K_TOPICS',
      'sources.k.groupId: required; set it in the YAML file or with QUEUEBOX_SOURCES_K_GROUPID',
    ]);
  });

  it('splits a comma-separated topic list', () => {
    const config = loadConfig({
      env: {
        ...DB_ENV,
        QUEUEBOX_SOURCES_K_TYPE: 'kafka',
        QUEUEBOX_SOURCES_K_BOOTSTRAPSERVERS: 'k:9092',
        QUEUEBOX_SOURCES_K_GROUPID: 'g',
        QUEUEBOX_SOURCES_K_TOPICS: 'a, b',
      },
      readFile: () => undefined,
    });
    expect(config.sources.k).toMatchObject({ topics: ['a', 'b'] });
  });

  it('checks NATS keys', () => {
    expect(
      problems(
        'sources:\n  n: {type: nats, servers: "nats://n", stream: S, durable: "", ackWaitMs: 0, token: t, username: u, password: p}',
      ),
    ).toEqual([
      'sources.n.ackWaitMs: must be greater than 0',
      'sources.n.durable: must not be blank',
      'sources.n.token: cannot be combined with sources.n.username; NATS accepts one of them, so remove one',
    ]);
  });

  it('needs non-blank attribute headers', () => {
    expect(
      problems(
        'sources:\n  n: {type: nats, servers: "nats://n", stream: S, durable: d, attributeHeaders: {eventType: ""}}',
      ),
    ).toEqual(['sources.n.attributeHeaders.eventType: must not be blank']);
  });
});
