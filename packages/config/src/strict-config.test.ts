import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, type LoadConfigOptions } from '../test/brokers.js';
import type { AppConfig } from '@queuebox/core';

const DATABASE = `
database:
  url: jdbc:postgresql://localhost:5432/queuebox
  username: queuebox
  password: secret
`;

function options(yaml: string | undefined, env: Record<string, string> = {}): LoadConfigOptions {
  return {
    env: { QUEUEBOX_CONFIG_FILE: '/cfg.yml', ...env },
    readFile: (path) => (path === '/cfg.yml' ? yaml : undefined),
  };
}

function load(yaml: string, env: Record<string, string> = {}): AppConfig {
  return loadConfig(options(DATABASE + yaml, env));
}

function failure(yaml: string, env: Record<string, string> = {}): ConfigError {
  try {
    loadConfig(options(DATABASE + yaml, env));
  } catch (error: unknown) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('the configuration loaded');
}

const problems = (yaml: string, env: Record<string, string> = {}): readonly string[] =>
  failure(yaml, env).problems;

describe('strict keys (spec §12.1)', () => {
  it('reports an unknown key with a near-miss suggestion', () => {
    expect(problems('outbox:\n  batchSzie: 10')).toEqual([
      'outbox.batchSzie: unknown key; did you mean batchSize?',
    ]);
  });

  it('reports an unknown key without a suggestion when nothing is near', () => {
    expect(problems('outbox:\n  colour: red')).toEqual(['outbox.colour: unknown key']);
    expect(problems('outbx: {}')).toEqual(['outbx: unknown key; did you mean outbox?']);
  });

  it('allows one edit for a key of up to 4 characters and two for longer keys', () => {
    // `pth` is one edit from `path` (4 characters); `xyth` is two and gets no suggestion.
    expect(problems('destinations:\n  d: {type: http, baseUrl: "https://x", pth: /a}')).toEqual([
      'destinations.d.pth: unknown key for type http; did you mean path?',
    ]);
    expect(problems('destinations:\n  d: {type: http, baseUrl: "https://x", xyth: /a}')).toEqual([
      'destinations.d.xyth: unknown key for type http',
    ]);
    // Two edits, a swap counting as one: `tiemoutMz` → `timeoutMs`.
    expect(
      problems('destinations:\n  d: {type: http, baseUrl: "https://x", tiemoutMz: 5}'),
    ).toEqual(['destinations.d.tiemoutMz: unknown key for type http; did you mean timeoutMs?']);
  });

  it('reports a key that the selected type does not take, naming the type that takes it', () => {
    expect(
      problems(
        'destinations:\n  orders: {type: rabbitmq, url: "amqp://r", exchange: e, baseUrl: "https://x"}',
      ),
    ).toEqual(['destinations.orders.baseUrl: unknown key for type rabbitmq; type http takes it']);
    expect(
      problems(
        'destinations:\n  orders: {type: rabbitmq, url: "amqp://r", exchange: e, timeoutMs: 5}',
      ),
    ).toEqual([
      'destinations.orders.timeoutMs: unknown key for type rabbitmq; types http, kafka and nats take it',
    ]);
  });

  it('reports a destination or an auth block without type', () => {
    expect(problems('destinations:\n  billing: {baseUrl: "https://x"}')).toEqual([
      'destinations.billing: missing type; set one of http, kafka, nats, rabbitmq',
    ]);
    expect(
      problems(
        'destinations:\n  d: {type: http, baseUrl: "https://x", auth: {username: u, password: p}}',
      ),
    ).toEqual(['destinations.d.auth: missing type; set one of basic, header, oauth2']);
  });

  it('reports an unknown type with a suggestion, or the choices', () => {
    expect(problems('destinations:\n  d: {type: rabbit, url: "amqp://r", exchange: e}')).toEqual([
      'destinations.d.type: unknown type rabbit; did you mean rabbitmq?',
    ]);
    expect(problems('destinations:\n  d: {type: sqs}')).toEqual([
      'destinations.d.type: unknown type sqs; set one of http, kafka, nats, rabbitmq',
    ]);
  });

  it('reads a source without type as an HTTP source, so broker keys are refused', () => {
    expect(
      load('sources:\n  stripe: {path: /stripe, idempotencyKeyPath: $.id, eventTypePath: $.type}')
        .sources.stripe?.type,
    ).toBe('http');
    expect(problems('sources:\n  orders: {queueName: orders, connectionUrl: "amqp://r"}')).toEqual([
      'sources.orders.queueName: unknown key for type http; type rabbitmq takes it',
      'sources.orders.connectionUrl: unknown key for type http; type rabbitmq takes it',
      'sources.orders.path: required; set it in the YAML file or with QUEUEBOX_SOURCES_ORDERS_PATH',
      "sources.orders.topic: the topic template '{{ eventType }}' uses eventType, but source 'orders' has no event type, so the relay would mark every message dead; set sources.orders.eventTypePath, sources.orders.eventTypeHeader or sources.orders.eventTypeExpression, or write a topic template without eventType",
      'sources.orders: has no idempotency key; set sources.orders.idempotencyKeyPath to a JSONPath in the body, sources.orders.idempotencyKeyHeader to a request header, or sources.orders.idempotencyKeyExpression to a JSONata expression',
    ]);
  });

  it('lists several problems in one error with the count line', () => {
    const error = failure(
      'outbox:\n  batchSzie: 10\ndestinations:\n  orders: {type: rabbitmq, url: "amqp://r", exchange: e, baseUrl: "https://x"}\n  billing: {baseUrl: "https://x"}',
    );
    expect(error.code).toBe('config_invalid');
    expect(error.message).toBe(
      [
        'The configuration has 3 errors. Fix each one and start QueueBox again.',
        '  - outbox.batchSzie: unknown key; did you mean batchSize?',
        '  - destinations.orders.baseUrl: unknown key for type rabbitmq; type http takes it',
        '  - destinations.billing: missing type; set one of http, kafka, nats, rabbitmq',
      ].join('\n'),
    );
  });

  it('says "1 error" for one problem', () => {
    expect(failure('outbox:\n  batchSzie: 10').message).toBe(
      'The configuration has 1 error. Fix each one and start QueueBox again.\n  - outbox.batchSzie: unknown key; did you mean batchSize?',
    );
  });

  it('names an unknown key inside a list element by its index', () => {
    expect(
      problems(
        'destinations:\n  d: {type: http, baseUrl: "https://x"}\nroutes:\n  - {topicPattern: "a.*", destination: d, destinaton: d}',
      ),
    ).toEqual(['routes[0].destinaton: unknown key; did you mean destination?']);
  });

  it('matches keys ignoring case, - and _', () => {
    const config = load(
      'outbox:\n  poll_interval_ms: 250\n  BATCHSIZE: 7\n  max-attempts: 3\nServer:\n  HTTP_PORT: 9000',
    );
    expect(config.outbox).toMatchObject({ pollIntervalMs: 250, batchSize: 7, maxAttempts: 3 });
    expect(config.server.httpPort).toBe(9000);
  });

  it('refuses one key written twice in two spellings', () => {
    expect(problems('outbox:\n  batchSize: 5\n  batch_size: 6')).toEqual([
      'outbox.batch_size: repeats outbox.batchSize; keep one of them',
    ]);
  });

  it('keeps user names (destinations, headers) as written', () => {
    const config = load(
      'destinations:\n  my_Webhook:\n    type: http\n    baseUrl: "https://x"\n    headers: {X-Custom-Header: v}',
    );
    expect(config.destinations.my_Webhook).toMatchObject({ headers: { 'X-Custom-Header': 'v' } });
  });

  it('reports a value of the wrong shape', () => {
    expect(problems('outbox: 5\nserver:\n  httpPort: [1]\nroutes: {a: 1}')).toEqual([
      'server.httpPort: must be a single value, not a list',
      'outbox: must be a section of keys, not a single value',
      'routes: must be a list',
    ]);
  });
});

describe('strict variables (spec §12.1, §13)', () => {
  it('names an unknown variable and suggests the variable', () => {
    expect(problems('', { QUEUEBOX_OUTBOX_BATCHSZIE: '10' })).toEqual([
      'QUEUEBOX_OUTBOX_BATCHSZIE: unknown variable; did you mean QUEUEBOX_OUTBOX_BATCHSIZE?',
    ]);
  });

  it('suggests the variable without inner underscores for a leaf written with them', () => {
    expect(problems('', { QUEUEBOX_OUTBOX_POLL_INTERVAL_MS: '10' })).toEqual([
      'QUEUEBOX_OUTBOX_POLL_INTERVAL_MS: unknown variable; did you mean QUEUEBOX_OUTBOX_POLLINTERVALMS?',
    ]);
  });

  it('names the variable for a key its destination type does not take', () => {
    expect(
      problems('destinations:\n  orders: {type: rabbitmq, url: "amqp://r", exchange: e}', {
        QUEUEBOX_DESTINATIONS_ORDERS_BASEURL: 'https://x',
      }),
    ).toEqual([
      'QUEUEBOX_DESTINATIONS_ORDERS_BASEURL: unknown variable for type rabbitmq; type http takes it',
    ]);
  });

  it('appends (set by VAR) to any other problem a variable caused', () => {
    expect(
      problems('', { QUEUEBOX_OUTBOX_BATCHSIZE: '0', QUEUEBOX_SERVER_HTTPPORT: 'http' }),
    ).toEqual([
      "server.httpPort: 'http' is not a whole number (set by QUEUEBOX_SERVER_HTTPPORT)",
      'outbox.batchSize: must be greater than 0 (set by QUEUEBOX_OUTBOX_BATCHSIZE)',
    ]);
    expect(problems('', { QUEUEBOX_DESTINATIONS_BILLING_BASEURL: 'https://x' })).toEqual([
      'destinations.billing: missing type; set one of http, kafka, nats, rabbitmq (set by QUEUEBOX_DESTINATIONS_BILLING_BASEURL)',
    ]);
  });

  it('reports file and variable problems together', () => {
    expect(
      problems('outbox:\n  batchSzie: 10\ndestinations:\n  d:\n    baseUrl: "https://x"', {
        QUEUEBOX_SERVER_HTTPPROT: '9090',
      }),
    ).toEqual([
      'QUEUEBOX_SERVER_HTTPPROT: unknown variable; did you mean QUEUEBOX_SERVER_HTTPPORT?',
      'outbox.batchSzie: unknown key; did you mean batchSize?',
      'destinations.d: missing type; set one of http, kafka, nats, rabbitmq',
    ]);
  });

  it('reports a section that both the file and a variable wrote under an unknown key, once each', () => {
    expect(problems('outbx:\n  batchSize: 1', { QUEUEBOX_OUTBX_MAXATTEMPTS: '2' })).toEqual([
      'outbx: unknown key; did you mean outbox?',
      'QUEUEBOX_OUTBX_MAXATTEMPTS: unknown variable; did you mean QUEUEBOX_OUTBOX_MAXATTEMPTS?',
    ]);
  });

  it('parses booleans and whole numbers from variables', () => {
    const config = load('', {
      QUEUEBOX_ADMIN_INSECURE: 'TRUE',
      QUEUEBOX_ADMIN_ENABLED: 'true',
      QUEUEBOX_OUTBOX_MAXATTEMPTS: '12',
    });
    expect(config.admin).toMatchObject({ enabled: true, insecure: true });
    expect(config.outbox.maxAttempts).toBe(12);
    expect(problems('', { QUEUEBOX_HTTP_BLOCKPRIVATEADDRESSES: 'yes' })).toEqual([
      "http.blockPrivateAddresses: 'yes' is not true or false (set by QUEUEBOX_HTTP_BLOCKPRIVATEADDRESSES)",
    ]);
  });

  it('ignores QUEUEBOX_CONFIG_FILE and Kubernetes service links that bind no setting', () => {
    const config = load('', {
      QUEUEBOX_DB_SERVICE_HOST: '10.0.0.1',
      QUEUEBOX_DB_SERVICE_PORT: '5432',
      QUEUEBOX_DB_SERVICE_PORT_POSTGRES: '5432',
      QUEUEBOX_PORT: 'tcp://10.0.0.2:8080',
      QUEUEBOX_PORT_8080_TCP: 'tcp://10.0.0.2:8080',
      QUEUEBOX_PORT_8080_TCP_ADDR: '10.0.0.2',
      QUEUEBOX_SERVER_PORT: 'tcp://10.0.0.3:8080',
    });
    expect(config.server.httpPort).toBe(8080);
  });

  it('still binds a service-link form that names a setting', () => {
    expect(
      load('', { QUEUEBOX_OUTBOX_CAPTURE_CONNECTION_PORT: '1433' }).outbox.capture.connection.port,
    ).toBe(1433);
  });

  it('reports two variables that collide', () => {
    expect(problems('', { QUEUEBOX_ROUTES_0: 'x', QUEUEBOX_ROUTES_0_DESTINATION: 'd' })).toEqual([
      'QUEUEBOX_ROUTES_0_DESTINATION: conflicts with QUEUEBOX_ROUTES_0; one sets a value where the other sets keys below it, so remove one of them',
      'routes[0]: must be a section of keys, not a single value (set by QUEUEBOX_ROUTES_0)',
    ]);
  });
});

describe('variable mapping and merging (spec §13)', () => {
  const webhook = {
    QUEUEBOX_DESTINATIONS_WEBHOOK_TYPE: 'http',
    QUEUEBOX_DESTINATIONS_WEBHOOK_BASEURL: 'https://api.example.com',
  };

  it('turns digit segments into list indexes, sorted and compacted', () => {
    const config = load('', {
      ...webhook,
      QUEUEBOX_ROUTES_7_TOPICPATTERN: 'late.*',
      QUEUEBOX_ROUTES_7_DESTINATION: 'webhook',
      QUEUEBOX_ROUTES_3_TOPICPATTERN: 'early.*',
      QUEUEBOX_ROUTES_3_DESTINATION: 'webhook',
    });
    expect(config.routes.map((r) => r.topicPattern)).toEqual(['early.*', 'late.*']);
  });

  it('names a compacted element by its index and the variable by its own name', () => {
    expect(
      problems('', {
        ...webhook,
        QUEUEBOX_ROUTES_3_TOPICPATTERN: 'a.*',
        QUEUEBOX_ROUTES_3_DESTINATON: 'webhook',
      }),
    ).toEqual([
      'QUEUEBOX_ROUTES_3_DESTINATON: unknown variable; did you mean QUEUEBOX_ROUTES_3_DESTINATION?',
      'routes[0].destination: required; set it in the YAML file or with QUEUEBOX_ROUTES_0_DESTINATION',
    ]);
  });

  it('reads lists of values with an index as the leaf', () => {
    const config = load('', {
      QUEUEBOX_SOURCES_ORDERS_TYPE: 'kafka',
      QUEUEBOX_SOURCES_ORDERS_BOOTSTRAPSERVERS: 'kafka:9092',
      QUEUEBOX_SOURCES_ORDERS_GROUPID: 'g',
      QUEUEBOX_SOURCES_ORDERS_TOPICS_0: 'orders',
      QUEUEBOX_SOURCES_ORDERS_TOPICS_1: 'payments',
      QUEUEBOX_SOURCES_ORDERS_AGGREGATEIDPATH_0: '$.orderId',
      QUEUEBOX_SOURCES_ORDERS_FILTER_REQUIRE_0_HEADER: 'x-region',
      QUEUEBOX_SOURCES_ORDERS_FILTER_REQUIRE_0_IN_1: 'uk',
      QUEUEBOX_SOURCES_ORDERS_FILTER_REQUIRE_0_IN_0: 'eu',
    });
    expect(config.sources.orders).toMatchObject({
      type: 'kafka',
      topics: ['orders', 'payments'],
      aggregateIdPath: ['$.orderId'],
      filter: {
        require: [{ header: 'x-region', test: { kind: 'in', values: ['eu', 'uk'] } }],
        exclude: [],
      },
    });
  });

  it('reads __ as a literal _ in a map key, and map keys from variables in lower case', () => {
    const config = load('', {
      QUEUEBOX_DESTINATIONS_MY__API_TYPE: 'http',
      QUEUEBOX_DESTINATIONS_MY__API_BASEURL: 'https://api.example.com',
      QUEUEBOX_DESTINATIONS_MY__API_HEADERS_X__TENANT: 'acme',
    });
    expect(Object.keys(config.destinations)).toEqual(['my_api']);
    expect(config.destinations.my_api).toMatchObject({
      baseUrl: 'https://api.example.com',
      headers: { x_tenant: 'acme' },
    });
  });

  it('merges variables over the file key by key inside maps', () => {
    const config = load(
      'outbox:\n  batchSize: 50\n  maxAttempts: 4\ndestinations:\n  webhook:\n    type: http\n    baseUrl: "https://old.example.com"\n    timeoutMs: 5000',
      {
        QUEUEBOX_OUTBOX_BATCHSIZE: '75',
        QUEUEBOX_DESTINATIONS_WEBHOOK_BASEURL: 'https://new.example.com',
      },
    );
    expect(config.outbox).toMatchObject({ batchSize: 75, maxAttempts: 4 });
    expect(config.destinations.webhook).toMatchObject({
      baseUrl: 'https://new.example.com',
      timeoutMs: 5000,
    });
  });

  it('lets a variable reach a file name written with - or in another case', () => {
    const config = load(
      'destinations:\n  Webhook-Api: {type: http, baseUrl: "https://x", timeoutMs: 5000}',
      {
        QUEUEBOX_DESTINATIONS_WEBHOOKAPI_TIMEOUTMS: '7000',
      },
    );
    expect(config.destinations['Webhook-Api']).toMatchObject({ timeoutMs: 7000 });
  });

  it('replaces a list of the file by the list the variables set', () => {
    const config = load(
      'destinations:\n  webhook: {type: http, baseUrl: "https://x"}\nroutes:\n  - {topicPattern: "a.*", destination: webhook}\n  - {topicPattern: "b.*", destination: webhook, routingKeyTemplate: "{{ topic }}"}',
      { QUEUEBOX_ROUTES_0_TOPICPATTERN: 'c.*', QUEUEBOX_ROUTES_0_DESTINATION: 'webhook' },
    );
    expect(config.routes).toEqual([
      {
        topicPattern: 'c.*',
        destination: 'webhook',
        routingKeyTemplate: null,
        routingKeyMissingFieldDefault: '',
        transform: null,
      },
    ]);
    const paths = load(
      'sources:\n  s: {path: /s, idempotencyKeyPath: [$.a, $.b], eventTypePath: $.t}',
      {
        QUEUEBOX_SOURCES_S_IDEMPOTENCYKEYPATH_0: '$.c',
      },
    );
    expect(paths.sources.s?.idempotencyKeyPath).toEqual(['$.c']);
  });

  it('loads the documented env-only deployment', () => {
    const config = loadConfig({
      env: {
        QUEUEBOX_DATABASE_URL: 'jdbc:postgresql://db:5432/queuebox',
        QUEUEBOX_DATABASE_USERNAME: 'queuebox',
        QUEUEBOX_DATABASE_PASSWORD: 'secret',
        ...webhook,
        QUEUEBOX_ROUTES_0_TOPICPATTERN: 'order.*',
        QUEUEBOX_ROUTES_0_DESTINATION: 'webhook',
        QUEUEBOX_SOURCES_STRIPE_TYPE: 'http',
        QUEUEBOX_SOURCES_STRIPE_PATH: '/stripe',
        QUEUEBOX_SOURCES_STRIPE_IDEMPOTENCYKEYPATH: '$.id',
        QUEUEBOX_SOURCES_STRIPE_EVENTTYPEPATH: '$.type',
      },
      readFile: () => undefined,
    });
    expect(config.sources.stripe).toMatchObject({
      type: 'http',
      path: '/stripe',
      idempotencyKeyPath: ['$.id'],
      eventTypePath: ['$.type'],
    });
    expect(config.routes[0]).toMatchObject({ topicPattern: 'order.*', destination: 'webhook' });
  });
});
