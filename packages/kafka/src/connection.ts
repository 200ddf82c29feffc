/**
 * The kafkajs client of one destination or source: the broker list, `securityProtocol` and SASL
 * mapped to kafkajs options (spec §6.3, §16.2, open question 13), and kafkajs's own log lines
 * routed to the Logger port at debug level (QueueBox reports every failure that matters itself,
 * and kafkajs logs an ERROR for each retry it makes, which would drown the log in an outage).
 */
import {
  QueueBoxError,
  sanitize,
  toError,
  type KafkaSecurityConfig,
  type Logger,
} from '@queuebox/core';
import {
  Kafka,
  logLevel as KafkaLogLevel,
  type ISocketFactory,
  type KafkaConfig,
  type LogEntry,
  type SASLOptions,
} from './kafkajs.js';

/** Bounds the TCP (and TLS) connect of one broker connection. */
export const CONNECT_TIMEOUT_MS = 5_000;

/** How long a graceful disconnect may take before it is left to finish on its own. */
export const CLOSE_GRACE_MS = 1_000;

/** The kafkajs `sasl.mechanism` of each mechanism name Kafka uses (`sasl.mechanism`). */
const MECHANISMS = {
  PLAIN: 'plain',
  'SCRAM-SHA-256': 'scram-sha-256',
  'SCRAM-SHA-512': 'scram-sha-512',
} as const;

export interface ClientOptions {
  /** `queuebox destination <name>` / `queuebox source <name>`: the client id brokers log. */
  readonly clientId: string;
  /** `destinations.<name>` / `sources.<name>`, for the texts of a setting kafkajs cannot take. */
  readonly path: string;
  readonly bootstrapServers: string;
  readonly security: KafkaSecurityConfig;
  readonly connectTimeoutMs?: number;
  readonly requestTimeoutMs?: number;
  readonly logger: Logger;
  /** kafkajs's retries of one operation (connect, fetch, commit) before it reports a failure. */
  readonly retry?: KafkaConfig['retry'];
  /** Test seam: how sockets are opened (the tests route them through a fault proxy). */
  readonly socketFactory?: ISocketFactory;
}

/** `host:port` entries of a comma-separated list, trimmed, blanks dropped. */
export function brokerList(bootstrapServers: string): string[] {
  return bootstrapServers
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
}

/**
 * The TLS and SASL options of a security protocol: `SSL` and `SASL_SSL` use TLS with Node's
 * default trust store and host name check (the reference's endpoint identification `https`);
 * `SASL_*` authenticate with PLAIN or SCRAM. A mechanism kafkajs does not speak (GSSAPI,
 * OAUTHBEARER) throws a `config_invalid` error naming the key, which stops the start.
 */
export function securityOptions(
  security: KafkaSecurityConfig,
  path: string,
): Pick<KafkaConfig, 'ssl' | 'sasl'> {
  const protocol = security.securityProtocol;
  const ssl = protocol === 'SSL' || protocol === 'SASL_SSL';
  if (!protocol.startsWith('SASL_')) return ssl ? { ssl: true } : {};
  const name = (security.saslMechanism ?? '').trim().toUpperCase();
  const mechanism = Object.hasOwn(MECHANISMS, name)
    ? MECHANISMS[name as keyof typeof MECHANISMS]
    : undefined;
  if (mechanism === undefined) {
    throw new QueueBoxError(
      'config_invalid',
      `${path}.saslMechanism: QueueBox's Kafka client speaks PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512, not '${sanitize(security.saslMechanism ?? '')}'`,
    );
  }
  const sasl: SASLOptions = {
    mechanism,
    username: security.saslUsername ?? '',
    password: security.saslPassword?.reveal() ?? '',
  };
  return ssl ? { ssl: true, sasl } : { sasl };
}

/** The kafkajs configuration of one client; pure, so the mapping is tested without a broker. */
export function clientConfig(options: ClientOptions): KafkaConfig {
  return {
    clientId: options.clientId,
    brokers: brokerList(options.bootstrapServers),
    ...securityOptions(options.security, options.path),
    connectionTimeout: options.connectTimeoutMs ?? CONNECT_TIMEOUT_MS,
    ...(options.requestTimeoutMs === undefined ? {} : { requestTimeout: options.requestTimeoutMs }),
    enforceRequestTimeout: true,
    ...(options.retry === undefined ? {} : { retry: options.retry }),
    logLevel: KafkaLogLevel.WARN,
    logCreator: () => (entry: LogEntry) => logEntry(options.logger, entry),
    ...(options.socketFactory === undefined ? {} : { socketFactory: options.socketFactory }),
  };
}

export function createClient(options: ClientOptions): InstanceType<typeof Kafka> {
  return new Kafka(clientConfig(options));
}

function logEntry(logger: Logger, entry: LogEntry): void {
  logger.debug(`kafkajs ${entry.namespace}: ${sanitize(entry.log.message)}`);
}

/** Waits for `closing` at most CLOSE_GRACE_MS; never rejects. */
export async function closeWithin(closing: Promise<unknown>, ms = CLOSE_GRACE_MS): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    closing.catch(() => undefined),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms);
      timer.unref();
    }),
  ]);
  clearTimeout(timer);
}

/** A broker or network error as one sanitized line. */
export function errorText(error: unknown): string {
  return sanitize(toError(error).message);
}
