import { describe, expect, it } from 'vitest';
import { problems } from '../test/load.js';

const destination = (body: string): string => `destinations:\n  d: ${body}\n`;

describe('HTTP destinations (spec §6.1)', () => {
  it('accepts an absolute http(s) URL and a path without dot segments', () => {
    expect(
      problems(
        destination('{type: http, baseUrl: "https://api.example.com:8443/v1", path: /hooks/in}'),
      ),
    ).toEqual([]);
  });

  it.each([
    [
      'ftp://api.example.com',
      "destinations.d.baseUrl: 'ftp://api.example.com' must be an absolute http or https URL",
    ],
    [
      'api.example.com/x',
      "destinations.d.baseUrl: 'api.example.com/x' must be an absolute http or https URL",
    ],
    ['http://', "destinations.d.baseUrl: 'http://' is not a valid URL"],
    ['"  "', 'destinations.d.baseUrl: must not be blank'],
    [
      'https://user:pw@api.example.com',
      "destinations.d.baseUrl: must not carry a user name or a password, because a credential in a URL prints in clear text; use the 'auth' block (destinations.d.auth) instead",
    ],
  ])('refuses baseUrl %s', (url, message) => {
    expect(problems(destination(`{type: http, baseUrl: ${url}}`))).toEqual([message]);
  });

  it('refuses a path with a . or .. segment', () => {
    expect(problems(destination('{type: http, baseUrl: "https://x", path: /a/../b}'))).toEqual([
      "destinations.d.path: '/a/../b' must not hold a '.' or '..' segment, because the server resolves it and the target changes",
    ]);
    expect(problems(destination('{type: http, baseUrl: "https://x", path: "./b"}'))).toHaveLength(
      1,
    );
  });

  it('checks the auth kinds', () => {
    expect(
      problems(
        destination(
          '{type: http, baseUrl: "https://x", auth: {type: oauth2, clientId: " ", clientSecret: s, tokenUrl: "http://u:p@idp/token"}}',
        ),
      ),
    ).toEqual([
      'destinations.d.auth.clientId: must not be blank',
      'destinations.d.auth.tokenUrl: must not carry a user name or a password, because a credential in a URL prints in clear text; set the client credentials in destinations.d.auth.clientId and destinations.d.auth.clientSecret',
    ]);
    expect(
      problems(destination('{type: http, baseUrl: "https://x", auth: {type: basic, username: u}}')),
    ).toEqual([
      'destinations.d.auth.password: required; set it in the YAML file or with QUEUEBOX_DESTINATIONS_D_AUTH_PASSWORD',
    ]);
    expect(
      problems(
        destination(
          '{type: http, baseUrl: "https://x", auth: {type: header, headerName: "", headerValue: ""}}',
        ),
      ),
    ).toEqual([
      'destinations.d.auth.headerName: must not be blank',
      'destinations.d.auth.headerValue: must not be blank',
    ]);
  });

  it('refuses static headers HTTP cannot carry or the publisher sets itself', () => {
    const yaml = `destinations:
  d:
    type: http
    baseUrl: https://x
    headers:
      X-Ok: fine
      X-Unicode: 订单
      "bad name": x
      Transfer-Encoding: chunked
      Host: api.example.com
      Proxy-Authorization: Basic eDp5
      X-Folded: "a\\r\\nX-Injected: 1"
      X-Trailing: |
        value
`;
    expect(problems(yaml)).toEqual([
      "destinations.d.headers.bad name: 'bad name' is not a valid header name; use letters, digits and !#$%&'*+-.^_`|~ only",
      "destinations.d.headers.Transfer-Encoding: 'Transfer-Encoding' frames the request or the connection, which QueueBox does itself for every message; remove it",
      "destinations.d.headers.Host: 'Host' frames the request or the connection, which QueueBox does itself for every message; remove it",
      "destinations.d.headers.Proxy-Authorization: 'Proxy-Authorization' frames the request or the connection, which QueueBox does itself for every message; remove it",
      'destinations.d.headers.X-Folded: must not hold a control character such as a line break (look for a trailing newline); HTTP cannot carry it',
      'destinations.d.headers.X-Trailing: must not hold a control character such as a line break (look for a trailing newline); HTTP cannot carry it',
    ]);
  });

  it('refuses a static or an auth header named like one QueueBox sets itself, in any letter case', () => {
    const yaml = `destinations:
  d:
    type: rabbitmq
    url: amqp://localhost
    exchange: x
    headers:
      x-message-id: fixed
      X-TOPIC: fixed
  h:
    type: http
    baseUrl: https://x
    auth: {type: header, headerName: X-Attempt, headerValue: v}
`;
    expect(problems(yaml)).toEqual([
      "destinations.d.headers.x-message-id: 'x-message-id' is a header QueueBox sets itself on every message, so a receiver can trust it; remove it",
      "destinations.d.headers.X-TOPIC: 'X-TOPIC' is a header QueueBox sets itself on every message, so a receiver can trust it; remove it",
      "destinations.h.auth.headerName: 'X-Attempt' is a header QueueBox sets itself on every message, so a receiver can trust it; remove it",
    ]);
  });

  it('refuses a header auth whose name or value HTTP cannot carry, without printing the value', () => {
    const auth = (name: string, value: string) =>
      problems(
        destination(
          `{type: http, baseUrl: "https://x", auth: {type: header, headerName: "${name}", headerValue: "${value}"}}`,
        ),
      );
    expect(auth('X-Api-Key', 'k-1')).toEqual([]);
    expect(auth('X Api Key', 'k-1')).toEqual([
      "destinations.d.auth.headerName: 'X Api Key' is not a valid header name; use letters, digits and !#$%&'*+-.^_`|~ only",
    ]);
    expect(auth('Connection', 'k-1')).toHaveLength(1);
    const newline = auth('X-Api-Key', 'sekrit\\n');
    expect(newline).toEqual([
      'destinations.d.auth.headerValue: must not hold a control character such as a line break (look for a trailing newline); HTTP cannot carry it',
    ]);
  });
});

describe('broker destinations (spec §6.2–6.4)', () => {
  it('refuses an unknown deliveryMode and a *From that is not a column', () => {
    expect(
      problems(
        destination(
          '{type: rabbitmq, url: "amqp://r", exchange: e, deliveryMode: durable, exchangeFrom: aggregateType}',
        ),
      ),
    ).toEqual([
      "destinations.d.exchangeFrom: 'aggregateType' is not one of aggregate_type, topic, key",
      "destinations.d.deliveryMode: 'durable' is not one of persistent, transient",
    ]);
  });

  it('takes the address from *From when it is set, else requires the template', () => {
    expect(
      problems(destination('{type: kafka, bootstrapServers: "k:9092", topicFrom: aggregate_type}')),
    ).toEqual([]);
    expect(problems(destination('{type: nats, servers: "nats://n"}'))).toEqual([
      'destinations.d.subject: required unless destinations.d.subjectFrom is set',
    ]);
  });

  it('refuses a placeholder an address template cannot read', () => {
    expect(
      problems(
        destination(
          '{type: rabbitmq, url: "amqp://r", exchange: "orders.{{ region }}.{{ payload.tenant }}"}',
        ),
      ),
    ).toEqual([
      'destinations.d.exchange: the placeholder {{ region }} cannot be used in an address; use topic, key, aggregateType, payload.<field> or data.<field>',
    ]);
  });

  it('checks the AMQP URI without printing it', () => {
    const lines = problems(
      destination('{type: rabbitmq, url: "http://guest:hunter2@rabbit", exchange: e}'),
    );
    expect(lines).toEqual([
      'destinations.d.url: is not a valid AMQP URI (amqp://host or amqps://host); the value is not printed because it can hold a password',
    ]);
  });

  it('needs a Kafka timeout of at least 2000 ms and the SASL settings for SASL_*', () => {
    expect(
      problems(
        destination(
          '{type: kafka, bootstrapServers: "k:9092", topic: t, timeoutMs: 1999, securityProtocol: SASL_SSL, saslUsername: u}',
        ),
      ),
    ).toEqual([
      'destinations.d.timeoutMs: must be at least 2000; the Kafka producer needs the delivery timeout to stay above the request timeout',
      'destinations.d.saslMechanism: required by securityProtocol SASL_SSL',
      'destinations.d.saslPassword: required by securityProtocol SASL_SSL',
    ]);
    expect(
      problems(
        destination(
          '{type: kafka, bootstrapServers: "k:9092", topic: t, securityProtocol: sasl_ssl}',
        ),
      ),
    ).toEqual([
      "destinations.d.securityProtocol: 'sasl_ssl' is not one of PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL; the value is case-sensitive, write SASL_SSL",
    ]);
  });

  it('takes NATS username and password together, and a token without a username', () => {
    expect(
      problems(destination('{type: nats, servers: "nats://n", subject: s, username: u, token: t}')),
    ).toEqual([
      'destinations.d.password: required because destinations.d.username is set; NATS takes the two together',
      'destinations.d.token: cannot be combined with destinations.d.username; NATS accepts one of them, so remove one',
    ]);
    expect(
      problems(destination('{type: nats, servers: "nats://n", subject: s, password: p}')),
    ).toEqual([
      'destinations.d.username: required because destinations.d.password is set; NATS takes the two together',
    ]);
  });
});

describe('transforms (spec §5.4)', () => {
  it('needs a non-blank expression, positive limits and an exact-case onError', () => {
    expect(
      problems(
        `${destination('{type: http, baseUrl: "https://x", transform: {expression: " ", timeoutMs: 0, maxDepth: -1, onError: fail}}')}`,
      ),
    ).toEqual([
      'destinations.d.transform.timeoutMs: must be greater than 0',
      'destinations.d.transform.maxDepth: must be greater than 0',
      "destinations.d.transform.onError: 'fail' is not one of Fail, Skip, Dead; the value is case-sensitive, write Fail",
      'destinations.d.transform.expression: must not be blank',
    ]);
  });
});

describe('routes (spec §5.1, §12.2)', () => {
  const web = destination('{type: http, baseUrl: "https://x"}');

  it('needs a non-blank pattern without *** and an existing destination', () => {
    expect(
      problems(
        `${web}routes:\n  - {topicPattern: "a.***", destination: d}\n  - {topicPattern: " ", destination: nowhere}`,
      ),
    ).toEqual([
      "routes[0].topicPattern: 'a.***' holds '***'; use '*' for one segment and '**' for any number of segments",
      'routes[1].topicPattern: must not be blank',
      "routes[1].destination: names the destination 'nowhere', which does not exist; the destinations are d",
    ]);
  });

  it('says when no destination exists at all, and requires both keys', () => {
    expect(problems('routes:\n  - {topicPattern: "a.*", destination: d}\n  - {}')).toEqual([
      'routes[1].topicPattern: required; set it in the YAML file or with QUEUEBOX_ROUTES_1_TOPICPATTERN',
      'routes[1].destination: required; set it in the YAML file or with QUEUEBOX_ROUTES_1_DESTINATION',
      "routes[0].destination: names the destination 'd', but no destinations are configured",
    ]);
  });

  it('does not report a route to a destination that failed its own checks', () => {
    expect(
      problems(
        'destinations:\n  d: {baseUrl: "https://x"}\nroutes:\n  - {topicPattern: "a.*", destination: d}',
      ),
    ).toEqual(['destinations.d: missing type; set one of http, kafka, nats, rabbitmq']);
  });
});

describe('destinations.<name>.circuitBreaker', () => {
  it('is taken by every destination type', () => {
    expect(
      problems(
        destination(
          '{type: kafka, bootstrapServers: "k:9092", topic: t, circuitBreaker: {failureThreshold: 3}}',
        ),
      ),
    ).toEqual([]);
    expect(problems(destination('{type: http, baseUrl: "https://x", circuitBreaker: {}}'))).toEqual(
      [],
    );
  });

  it('names the key of a wrong value', () => {
    expect(
      problems(
        destination(
          '{type: http, baseUrl: "https://x", circuitBreaker: {failureThreshold: 0, failureRatePercent: 150, openMs: soon, minimumCalls: -1}}',
        ),
      ),
    ).toEqual([
      'destinations.d.circuitBreaker.failureThreshold: must be greater than 0',
      'destinations.d.circuitBreaker.failureRatePercent: must be between 1 and 100',
      'destinations.d.circuitBreaker.minimumCalls: must be greater than 0',
      "destinations.d.circuitBreaker.openMs: 'soon' is not a whole number of milliseconds",
    ]);
  });

  it('refuses an unknown key inside it', () => {
    const found = problems(
      destination('{type: http, baseUrl: "https://x", circuitBreaker: {threshold: 3}}'),
    );
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(/^destinations\.d\.circuitBreaker\.threshold: /);
  });
});
