/**
 * The validated, fully defaulted configuration (spec §12). `@queuebox/config` builds it from
 * YAML and `QUEUEBOX_*` variables and freezes it; every other package reads only this shape.
 * Names follow the YAML keys so that an operator's key maps to one field here.
 */
import type { Secret } from '../secret.js';

export interface AppConfig {
  readonly server: ServerConfig;
  readonly database: DatabaseConfig;
  readonly outbox: OutboxConfig;
  readonly inbox: InboxConfig;
  readonly http: HttpConfig;
  readonly admin: AdminConfig;
  /** Map key = destination name. Insertion order is the YAML/variable order. */
  readonly destinations: Readonly<Record<string, DestinationConfig>>;
  readonly routes: readonly RouteConfig[];
  /** Map key = source name (stored in `inbox.source`). */
  readonly sources: Readonly<Record<string, SourceConfig>>;
  readonly retention: RetentionConfig;
}

export interface ServerConfig {
  readonly httpPort: number;
  readonly managementPort: number | null;
}

export type DatabaseType = 'postgresql' | 'sqlserver';

export interface DatabaseConfig {
  readonly type: DatabaseType;
  /** As configured (`jdbc:postgresql://...` or `postgres://...`); print with `maskUrl`. */
  readonly url: string;
  /** The parsed URL: what a driver connects with. */
  readonly connection: DatabaseConnection;
  readonly username: string;
  readonly password: Secret;
  readonly poolSize: number;
  readonly connectionTimeoutMs: number;
  readonly startupTimeoutMs: number;
  readonly migrate: boolean;
  readonly outboxTableName: string;
  readonly inboxTableName: string;
  readonly columnMapping: ColumnMapping;
}

export interface DatabaseConnection {
  /** One or more hosts, in URL order. */
  readonly hosts: readonly { readonly host: string; readonly port: number }[];
  readonly database: string;
  /** Query parameters of the URL (`?sslmode=require`, `;encrypt=true` on SQL Server). */
  readonly params: Readonly<Record<string, string>>;
}

export type OutboxColumn =
  | 'id'
  | 'topic'
  | 'key'
  | 'aggregateType'
  | 'payload'
  | 'headers'
  | 'state'
  | 'attempt'
  | 'maxAttempts'
  | 'scheduledAt'
  | 'createdAt'
  | 'updatedAt'
  | 'claimedAt'
  | 'claimToken'
  | 'leaseExpiresAt'
  | 'lastError'
  | 'sequence';

export type InboxColumn =
  | 'id'
  | 'source'
  | 'idempotencyKey'
  | 'aggregateId'
  | 'eventType'
  | 'payload'
  | 'state'
  | 'createdAt'
  | 'processedAt'
  | 'claimedAt'
  | 'claimToken'
  | 'leaseExpiresAt'
  | 'correlationId'
  | 'consumption'
  | 'scheduledAt'
  | 'attempt'
  | 'lastError'
  | 'headers';

/** Every column, always filled: the default name where the operator set none. */
export interface ColumnMapping {
  readonly outbox: Readonly<Record<OutboxColumn, string>>;
  readonly inbox: Readonly<Record<InboxColumn, string>>;
}

export type CaptureMode = 'polling' | 'postgres-logical' | 'sqlserver-cdc';

export interface OutboxConfig {
  readonly pollIntervalMs: number;
  readonly batchSize: number;
  readonly concurrency: number;
  readonly retryBaseDelayMs: number;
  readonly maxAttempts: number;
  readonly claimTimeoutMs: number;
  readonly pendingGaugeIntervalMs: number;
  readonly shutdownTimeoutMs: number;
  readonly capture: CaptureConfig;
}

export interface CaptureConfig {
  readonly mode: CaptureMode;
  readonly enabled: boolean;
  readonly identity: string;
  readonly stateDirectory: string;
  readonly schema: string | null;
  readonly publication: string;
  readonly slot: string;
  readonly reconciliationIntervalMs: number;
  readonly connection: CaptureConnectionConfig;
}

export interface CaptureConnectionConfig {
  readonly hostname: string | null;
  readonly port: number | null;
  readonly database: string | null;
  readonly username: string | null;
  readonly password: Secret | null;
  readonly encrypt: boolean;
  readonly trustServerCertificate: boolean;
}

export interface InboxConfig {
  readonly basePath: string;
  readonly maxBodyBytes: number;
  readonly relay: RelayConfig;
}

export interface RelayConfig {
  readonly enabled: boolean;
  readonly pollIntervalMs: number;
  readonly batchSize: number;
  readonly claimTimeoutMs: number;
  readonly pendingGaugeIntervalMs: number;
  /** Filled with `outbox.maxAttempts` when not set (post-validation normalisation). */
  readonly maxAttempts: number;
}

export interface HttpConfig {
  readonly maxErrorBodyBytes: number;
  readonly blockPrivateAddresses: boolean;
}

export interface AdminConfig {
  readonly enabled: boolean;
  readonly insecure: boolean;
  readonly auth: InboundAuthConfig | null;
  readonly maxTransformTimeoutMs: number;
  readonly maxPayloadBytes: number;
}

export type TransformOnError = 'Fail' | 'Skip' | 'Dead';

export interface TransformConfig {
  readonly expression: string;
  readonly timeoutMs: number;
  readonly maxDepth: number;
  readonly onError: TransformOnError;
}

// ---- destinations (§6) ----

export type DestinationType = 'http' | 'rabbitmq' | 'kafka' | 'nats';
export type AddressColumn = 'aggregate_type' | 'topic' | 'key';

export interface DestinationCommon {
  readonly headers: Readonly<Record<string, string>>;
  readonly transform: TransformConfig | null;
  /**
   * Spares the receiver: a rate and a cap on publishes in flight, per replica. Null or absent
   * sends as fast as the poller goes, as QueueBox always did. Optional so a configuration built
   * by hand (tests, embedders) needs no new key.
   */
  readonly rateLimit?: DestinationRateLimit | null;
  /**
   * Stops publishing to a failing destination for a while (rows wait, no attempt counted); null
   * or absent publishes as the reference does. Optional so a hand-built configuration needs no
   * new key.
   */
  readonly circuitBreaker?: CircuitBreakerConfig | null;
}

/**
 * `destinations.<name>.rateLimit`: a token bucket (`perSecond` refilled continuously, at most
 * `burst` saved up) and `maxInFlight`, each on its own or both; at least one is set. Each
 * replica holds its own bucket and its own count.
 */
export interface DestinationRateLimit {
  /** Publishes started per second, a positive number (0.5 is one every two seconds). */
  readonly perSecond: number | null;
  /** Tokens saved up at most; set (defaulted) whenever `perSecond` is. */
  readonly burst: number | null;
  /** The most publishes to this destination in flight at once. */
  readonly maxInFlight: number | null;
}

/**
 * `destinations.<name>.circuitBreaker`. It opens after `failureThreshold` failed publishes in a
 * row, or when at least `minimumCalls` publishes in the last `windowMs` failed in a share of
 * `failureRatePercent` % or more (when set); it stays open `openMs`, then lets one publish
 * through (half-open) and closes when it succeeds. A 429 or 503 with `Retry-After` opens it until
 * then.
 */
export interface CircuitBreakerConfig {
  readonly failureThreshold: number;
  readonly failureRatePercent: number | null;
  readonly windowMs: number;
  readonly minimumCalls: number;
  readonly openMs: number;
  /** The longest a `Retry-After` keeps the circuit open (a far date is capped to this). */
  readonly maxRetryAfterMs: number;
}

export interface HttpDestinationConfig extends DestinationCommon {
  readonly type: 'http';
  readonly baseUrl: string;
  readonly path: string;
  readonly timeoutMs: number;
  readonly auth: DestinationAuthConfig | null;
  /**
   * Signs each request (Standard Webhooks); null or absent sends unsigned, as QueueBox always
   * did. Optional so a configuration built by hand (tests, embedders) needs no new key.
   */
  readonly signing?: SigningConfig | null;
}

/**
 * `destinations.<name>.signing`: the Standard Webhooks scheme. Each secret (`whsec_<base64>`)
 * gives one `v1,` signature, so a receiver keeps verifying through a rotation.
 */
export interface SigningConfig {
  readonly scheme: 'standard-webhooks';
  /** One or more; every one signs. */
  readonly secrets: readonly Secret[];
}

export interface RabbitDestinationConfig extends DestinationCommon {
  readonly type: 'rabbitmq';
  readonly url: string;
  readonly exchange: string;
  readonly exchangeFrom: AddressColumn | null;
  readonly exchangeType: string;
  readonly routingKeyTemplate: string;
  readonly deliveryMode: 'persistent' | 'transient';
}

export type KafkaSecurityProtocol = 'PLAINTEXT' | 'SSL' | 'SASL_PLAINTEXT' | 'SASL_SSL';

export interface KafkaSecurityConfig {
  readonly securityProtocol: KafkaSecurityProtocol;
  readonly saslMechanism: string | null;
  readonly saslUsername: string | null;
  readonly saslPassword: Secret | null;
}

export interface KafkaDestinationConfig extends DestinationCommon, KafkaSecurityConfig {
  readonly type: 'kafka';
  readonly bootstrapServers: string;
  readonly topic: string;
  readonly topicFrom: AddressColumn | null;
  readonly keyTemplate: string;
  readonly timeoutMs: number;
}

export interface NatsCredentials {
  readonly username: string | null;
  readonly password: Secret | null;
  readonly token: Secret | null;
}

export interface NatsDestinationConfig extends DestinationCommon, NatsCredentials {
  readonly type: 'nats';
  readonly servers: string;
  readonly subject: string;
  readonly subjectFrom: AddressColumn | null;
  readonly jetStream: boolean;
  readonly timeoutMs: number;
}

export type DestinationConfig =
  HttpDestinationConfig | RabbitDestinationConfig | KafkaDestinationConfig | NatsDestinationConfig;

export type DestinationAuthConfig =
  | {
      readonly type: 'oauth2';
      readonly clientId: string;
      readonly clientSecret: Secret;
      readonly tokenUrl: string;
      readonly scope: string | null;
      readonly extraParams: Readonly<Record<string, string>>;
    }
  | { readonly type: 'basic'; readonly username: string; readonly password: Secret }
  | { readonly type: 'header'; readonly headerName: string; readonly headerValue: Secret };

// ---- routes (§5.1) ----

export interface RouteConfig {
  readonly topicPattern: string;
  readonly destination: string;
  readonly routingKeyTemplate: string | null;
  readonly routingKeyMissingFieldDefault: string;
  readonly transform: TransformConfig | null;
}

// ---- inbound auth (§16.1) ----

export type InboundAuthConfig =
  | { readonly type: 'bearer'; readonly token: Secret }
  | { readonly type: 'api-key'; readonly key: Secret; readonly headerName: string }
  | {
      readonly type: 'hmac';
      readonly secret: Secret;
      readonly headerName: string;
      readonly algorithm: 'HmacSHA256' | 'HmacSHA512';
      readonly signaturePrefix: string;
      readonly timestampHeader: string | null;
      readonly timestampToleranceMs: number;
      readonly signaturePayloadFormat: 'BODY' | 'TIMESTAMP_DOT_BODY';
    };

/**
 * The schemes of the common webhook senders, for HTTP sources only. A request passes when a
 * signature it carries matches one of `secrets` (several during a rotation).
 */
export type SenderAuthConfig =
  | {
      readonly type: 'standard-webhooks' | 'stripe';
      readonly secrets: readonly Secret[];
      readonly timestampToleranceMs: number;
    }
  | { readonly type: 'github' | 'shopify'; readonly secrets: readonly Secret[] };

/** What an HTTP source may check: the generic kinds plus the senders' own schemes. */
export type SourceAuthConfig = InboundAuthConfig | SenderAuthConfig;

// ---- sources (§7) ----

export type SourceType = 'http' | 'rabbitmq' | 'kafka' | 'nats';

export interface HeaderFilterRule {
  readonly header: string;
  readonly test:
    | { readonly kind: 'equals'; readonly value: string }
    | { readonly kind: 'in'; readonly values: readonly string[] }
    | { readonly kind: 'matches'; readonly glob: string }
    | { readonly kind: 'exists' };
}

export interface HeaderFilterConfig {
  readonly require: readonly HeaderFilterRule[];
  readonly exclude: readonly HeaderFilterRule[];
}

export interface SourceCommon {
  readonly consumption: 'push' | 'pull';
  /** The relay's topic template; defaulted per kind (HTTP `{{ eventType }}`, others `{{ source }}`). */
  readonly topic: string;
  /** JSONPath lists; a single path in YAML becomes a list of one. Empty = not set. */
  readonly idempotencyKeyPath: readonly string[];
  readonly aggregateIdPath: readonly string[];
  readonly eventTypePath: readonly string[];
  readonly idempotencyKeyExpression: string | null;
  readonly aggregateIdExpression: string | null;
  readonly eventTypeExpression: string | null;
  /** Milliseconds; 0 when not set. */
  readonly initialDelayMs: number;
  readonly scheduledAtHeader: string | null;
  readonly scheduledAtPath: readonly string[];
  readonly transform: TransformConfig | null;
  readonly filter: HeaderFilterConfig | null;
}

export interface HttpSourceConfig extends SourceCommon {
  readonly type: 'http';
  readonly path: string;
  readonly idempotencyKeyHeader: string | null;
  readonly eventTypeHeader: string | null;
  readonly aggregateIdHeader: string | null;
  readonly auth: SourceAuthConfig | null;
  readonly rateLimit: { readonly requestsPerMinute: number } | null;
}

export interface AttributeHeaders {
  readonly idempotencyKey: string;
  readonly aggregateId: string;
  readonly eventType: string;
}

export interface BrokerSourceCommon extends SourceCommon {
  readonly eventTypeFromHeader: boolean;
  readonly attributeHeaders: AttributeHeaders;
}

export interface RabbitSourceConfig extends BrokerSourceCommon {
  readonly type: 'rabbitmq';
  readonly queueName: string;
  readonly connectionUrl: string;
  readonly prefetchCount: number;
  readonly declareQueue: boolean;
}

export interface KafkaSourceConfig extends BrokerSourceCommon, KafkaSecurityConfig {
  readonly type: 'kafka';
  readonly bootstrapServers: string;
  readonly topics: readonly string[];
  readonly groupId: string;
  readonly autoOffsetReset: 'earliest' | 'latest';
  readonly maxPollRecords: number;
}

export interface NatsSourceConfig extends BrokerSourceCommon, NatsCredentials {
  readonly type: 'nats';
  readonly servers: string;
  readonly stream: string;
  readonly durable: string;
  readonly filterSubject: string | null;
  readonly ackWaitMs: number;
  readonly batchSize: number;
}

export type SourceConfig =
  HttpSourceConfig | RabbitSourceConfig | KafkaSourceConfig | NatsSourceConfig;

// ---- retention (§17.4) ----

export interface RetentionPolicyConfig {
  readonly policy: 'AGE' | 'COUNT' | 'DISABLED';
  readonly maxAgeMs: number | null;
  readonly maxCount: number | null;
  readonly cleanupIntervalMs: number;
  readonly batchSize: number;
}

export interface RetentionConfig {
  readonly enabled: boolean;
  readonly outbox: RetentionPolicyConfig;
  readonly inbox: RetentionPolicyConfig;
}
