/**
 * The rule text of every key in docs/configuration.md, beside the schema that enforces it. A
 * `type`, `default` or `key` here names what the schema cannot say (a duration kept as text, a
 * default taken from another key); `null` leaves a key out of its table (shown with another).
 * A broker's keys are documented by its block (`ConfigKindBlock.docs`), and the `type` rows list
 * `http` and the brokers the docs are rendered for.
 */
export interface KeyDoc {
  readonly rule?: string;
  readonly type?: string;
  readonly default?: string;
  readonly key?: string;
}

export const KEY_DOCS: Readonly<Record<string, Readonly<Record<string, KeyDoc | null>>>> = {
  server: {
    httpPort: { rule: '1–65535' },
    managementPort: { rule: '1–65535, different from `httpPort`' },
  },
  database: {
    type: { rule: '`postgresql` | `sqlserver` (else "Unknown database type")' },
    url: { rule: 'matches `type`, see below' },
    username: { rule: 'non-blank; may come from a `postgres://` URL', default: 'required' },
    password: { rule: 'may come from a `postgres://` URL', default: 'required' },
    poolSize: { rule: '> 0' },
    connectionTimeoutMs: { rule: '> 0 (pool borrow timeout)' },
    startupTimeoutMs: { rule: '> 0 (wait for the database at start)' },
    migrate: { rule: '`true` together with any rename stops the start' },
    outboxTableName: { rule: '`^[A-Za-z_][A-Za-z0-9_$]{0,62}$` (at most 63 characters)' },
    inboxTableName: { rule: 'same' },
    'columnMapping.outbox': {
      rule: 'non-blank, same rule',
      key: '`database.columnMapping.outbox.<key>`',
      type: 'string',
      default: 'default column name',
    },
    'columnMapping.inbox': {
      rule: 'non-blank, same rule',
      key: '`database.columnMapping.inbox.<key>`',
      type: 'string',
      default: 'default column name',
    },
  },
  outbox: {
    pollIntervalMs: { rule: '> 0' },
    batchSize: { rule: '> 0' },
    concurrency: { rule: '> 0' },
    retryBaseDelayMs: { rule: '≥ 0' },
    maxAttempts: { rule: '> 0 (written only into rows QueueBox creates)' },
    claimTimeoutMs: { rule: '> 0' },
    pendingGaugeIntervalMs: { rule: '> 0' },
    shutdownTimeoutMs: { rule: '> 0' },
    'capture.mode': {
      rule: '`polling` | `postgres-logical` (PostgreSQL only) | `sqlserver-cdc` (SQL Server only)',
    },
    'capture.enabled': { rule: '`true` needs a mode other than `polling`' },
    'capture.identity': { rule: 'when enabled: `^[a-z][a-z0-9_]{0,62}$`' },
    'capture.stateDirectory': { rule: 'required when enabled' },
    'capture.schema': {
      rule: 'when enabled: `^[A-Za-z_][A-Za-z0-9_]{0,62}$`',
      default: 'none (PostgreSQL `public`, SQL Server `dbo`)',
    },
    'capture.publication': { rule: 'when enabled: `^[a-z][a-z0-9_]{0,62}$`' },
    'capture.slot': { rule: 'when enabled: same' },
    'capture.reconciliationIntervalMs': { rule: '> 0' },
    'capture.connection.hostname': {
      rule: 'required when enabled and the URL names several hosts',
      default: "the URL's host",
    },
    'capture.connection.port': { rule: '1–65535', default: "the URL's port" },
    'capture.connection.database': { rule: '', default: "the URL's database" },
    'capture.connection.username': { rule: '', default: '`database.username`' },
    'capture.connection.password': { rule: '', default: '`database.password`' },
    'capture.connection.encrypt': { rule: 'SQL Server only (ignored on PostgreSQL)' },
    'capture.connection.trustServerCertificate': {
      rule: 'SQL Server only (ignored on PostgreSQL)',
    },
  },
  inbox: {
    basePath: { rule: '' },
    maxBodyBytes: {
      rule: '> 0; webhooks over it → `413`, broker messages over it → a dead row (below)',
    },
    'relay.enabled': { rule: '' },
    'relay.pollIntervalMs': { rule: '> 0' },
    'relay.batchSize': { rule: '> 0' },
    'relay.claimTimeoutMs': { rule: '> 0' },
    'relay.pendingGaugeIntervalMs': { rule: '> 0' },
    'relay.maxAttempts': { rule: '> 0 when set', default: '`outbox.maxAttempts`' },
  },
  http: {
    maxErrorBodyBytes: { rule: '> 0' },
    blockPrivateAddresses: {
      rule: 'when `true`, the start resolves every `baseUrl` and `tokenUrl` host and refuses private addresses',
    },
  },
  admin: {
    enabled: { rule: '' },
    insecure: { rule: '' },
    auth: { rule: '`bearer` | `api-key` | `hmac`, as for sources' },
    maxTransformTimeoutMs: { rule: '> 0' },
    maxPayloadBytes: { rule: '> 0' },
  },
  destinations: {
    type: { type: 'enum', default: 'required' },
    headers: { rule: 'static headers on every message (printed masked)' },
    transform: { rule: 'see [Transforms](#transform-blocks)' },
    rateLimit: {
      rule: '`perSecond` (with `burst`), `maxInFlight`, or both; per replica; see [Rate limits](#rate-limits-ratelimit)',
    },
    'circuitBreaker.failureThreshold': {
      rule: '> 0; failed publishes in a row that open the circuit. Writing any `circuitBreaker` key (or `circuitBreaker: {}`) turns the breaker on; see [Circuit breaker](#circuit-breaker)',
    },
    'circuitBreaker.failureRatePercent': {
      rule: '1–100; also open when this share of the publishes in `windowMs` failed (none: off)',
    },
    'circuitBreaker.windowMs': { rule: '> 0; the sliding window of `failureRatePercent`' },
    'circuitBreaker.minimumCalls': {
      rule: '> 0; publishes in the window before `failureRatePercent` counts',
    },
    'circuitBreaker.openMs': { rule: '> 0; how long it stays open before one probe publish' },
    'circuitBreaker.maxRetryAfterMs': {
      rule: '> 0; the longest a 429/503 `Retry-After` keeps it open',
    },
  },
  'destinations.http': {
    baseUrl: {
      rule: 'absolute `http://` or `https://` URL with a host; no `user:password@` (use `auth`)',
    },
    path: { rule: 'no `.` or `..` segment' },
    timeoutMs: { rule: '> 0 (connect timeout is half)' },
    auth: { rule: '`type` required: `oauth2` | `basic` | `header`' },
    signing: {
      rule: '`scheme: standard-webhooks` and `secret` or `secrets` (`whsec_<base64>`); see [Signing](#signing-what-queuebox-sends)',
    },
  },
  routes: {
    topicPattern: { rule: 'non-blank; no `***` (`*` = one segment, `**` = any text)' },
    destination: { rule: 'non-blank; names an existing destination' },
    routingKeyTemplate: { rule: '' },
    routingKeyMissingFieldDefault: { rule: '' },
    transform: { rule: 'see [Transforms](#transform-blocks)' },
  },
  sources: {
    type: { type: 'enum', default: '`http`' },
    consumption: { rule: '`push` | `pull`' },
    topic: {
      rule: 'non-blank on a push source; a push topic that uses `eventType` needs an event-type source (HTTP: `eventTypePath`, `eventTypeHeader` or `eventTypeExpression`; brokers: `eventTypePath`, `eventTypeExpression` or `eventTypeFromHeader: true`)',
      default: 'HTTP `{{ eventType }}`, others `{{ source }}`',
    },
    idempotencyKeyPath: {
      rule: 'non-empty list, each definite',
      type: 'JSONPath or list',
      default: 'HTTP none, brokers `$.id`',
    },
    aggregateIdPath: { rule: 'same', type: 'JSONPath or list' },
    eventTypePath: { rule: 'same', type: 'JSONPath or list' },
    idempotencyKeyExpression: { rule: 'non-blank JSONata (compiled at start)' },
    aggregateIdExpression: { rule: 'same' },
    eventTypeExpression: { rule: 'same' },
    initialDelay: { rule: 'non-negative, at most 2147483647 seconds', type: 'duration' },
    scheduledAtHeader: { rule: 'non-blank; needs `initialDelay` > 0' },
    scheduledAtPath: { rule: 'needs `initialDelay` > 0', type: 'JSONPath or list' },
    transform: { rule: 'see [Transforms](#transform-blocks)' },
    filter: { rule: 'see below', key: '`filter.require[i]`, `filter.exclude[i]`', type: 'rules' },
    'rateLimit.requestsPerMinute': {
      rule: '> 0; HTTP only (broker kinds accept and ignore it)',
      default: 'none',
    },
  },
  'sources.http': {
    path: {
      rule: 'non-blank; unique among HTTP sources; the route is `POST <inbox.basePath><path>`',
    },
    idempotencyKeyHeader: {
      rule: 'a source needs one of `idempotencyKeyPath`, `idempotencyKeyHeader`, `idempotencyKeyExpression`, unless its `auth.type` gives the event id',
    },
    eventTypeHeader: { rule: '', key: '`eventTypeHeader`, `aggregateIdHeader`' },
    aggregateIdHeader: null,
    auth: {
      rule: '`type` required: `bearer` | `api-key` | `hmac` | `standard-webhooks` | `stripe` | `github` | `shopify`',
    },
  },
  transform: {
    expression: { rule: 'non-blank JSONata (compiled at start)' },
    timeoutMs: { rule: '> 0' },
    maxDepth: { rule: '> 0' },
    onError: { rule: '`Fail` | `Skip` | `Dead` (exact case)' },
  },
  retention: {
    enabled: { rule: 'the blocks below are checked only when `true`' },
    'outbox.policy': { rule: '`AGE` | `COUNT` | `DISABLED` (exact case)' },
    'outbox.maxAge': { rule: 'required by `AGE`', type: 'duration' },
    'outbox.maxCount': { rule: 'required and > 0 by `COUNT`' },
    'outbox.cleanupInterval': { rule: '> 0 when the policy is not `DISABLED`', type: 'duration' },
    'outbox.batchSize': { rule: '> 0 when the policy is not `DISABLED`' },
    inbox: {
      rule: '`COUNT` stops the start (only `AGE` | `DISABLED`)',
      key: '`retention.inbox.*`',
      type: 'same',
      default: 'same',
    },
  },
};
