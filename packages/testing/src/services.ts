import { connect } from 'node:net';
import { existsSync } from 'node:fs';
import { freePort } from './ports.js';

/**
 * Locates the real services integration tests run against, in the order of the architecture:
 * an explicit variable, then the local default port, then testcontainers where a Docker engine
 * answers. A service found nowhere skips its suites with a printed reason, unless it is named in
 * QUEUEBOX_TEST_REQUIRE, where a missing service is a failure (CI must never go green by skipping
 * what runs on its machine).
 */
export type ServiceName = 'postgres' | 'rabbitmq' | 'nats' | 'kafka' | 'sqlserver';

export interface LocatedService {
  readonly available: true;
  readonly url: string;
  readonly via: 'variable' | 'local' | 'testcontainers';
}

export interface MissingService {
  readonly available: false;
  readonly reason: string;
}

export type ServiceLookup = LocatedService | MissingService;

/** Where the service answers, or '' where it is missing (its suites are skipped then). */
export function serviceUrl(lookup: ServiceLookup): string {
  return lookup.available ? lookup.url : '';
}

/** A suite's `skip`: false where the service answers, else why it is missing. */
export function serviceSkip(lookup: ServiceLookup): string | false {
  return lookup.available ? false : lookup.reason;
}

interface ServiceSpec {
  readonly variable: string;
  readonly local: { readonly host: string; readonly port: number; readonly url: string };
}

/** A service's variable, and where it answers on this machine. */
const spec = (variable: string, port: number, url: string): ServiceSpec => ({
  variable,
  local: { host: '127.0.0.1', port, url },
});

const SPECS: Record<ServiceName, ServiceSpec> = {
  postgres: spec('QUEUEBOX_TEST_POSTGRES_URL', 5432, 'postgres://postgres@127.0.0.1:5432/test'),
  rabbitmq: spec('QUEUEBOX_TEST_RABBITMQ_URL', 5672, 'amqp://guest:guest@127.0.0.1:5672'),
  nats: spec('QUEUEBOX_TEST_NATS_URL', 4222, 'nats://127.0.0.1:4222'),
  kafka: spec('QUEUEBOX_TEST_KAFKA_BROKERS', 9092, '127.0.0.1:9092'),
  sqlserver: spec(
    'QUEUEBOX_TEST_SQLSERVER_URL',
    1433,
    'sqlserver://sa:QueueBox_Test_1@127.0.0.1:1433;databaseName=master',
  ),
};

const cache = new Map<ServiceName, Promise<ServiceLookup>>();

/** Finds a service once per test process. */
export function locateService(name: ServiceName): Promise<ServiceLookup> {
  let found = cache.get(name);
  if (!found) {
    found = lookup(name);
    cache.set(name, found);
  }
  return found;
}

/**
 * The lookup a test file uses at its top: returns the service, or prints why its suites are
 * skipped; throws when QUEUEBOX_TEST_REQUIRE names the missing service.
 */
export async function requireService(name: ServiceName, suite: string): Promise<ServiceLookup> {
  const found = await locateService(name);
  if (found.available) return found;
  if (serviceRequired(name)) {
    throw new Error(
      `${suite}: QUEUEBOX_TEST_REQUIRE names ${name}, but ${found.reason}. Start it, or remove it from QUEUEBOX_TEST_REQUIRE.`,
    );
  }
  console.warn(`SKIPPED ${suite}: ${found.reason}`);
  return found;
}

/** Whether QUEUEBOX_TEST_REQUIRE names `name` (comma-separated, any letter case). */
export function serviceRequired(name: string): boolean {
  return (process.env.QUEUEBOX_TEST_REQUIRE ?? '')
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .includes(name);
}

async function lookup(name: ServiceName): Promise<ServiceLookup> {
  const spec = SPECS[name];
  const explicit = process.env[spec.variable];
  if (explicit) return { available: true, url: explicit, via: 'variable' };
  if (await portOpen(spec.local.host, spec.local.port)) {
    return { available: true, url: spec.local.url, via: 'local' };
  }
  const container = await startContainer(name);
  if (container) return { available: true, url: container, via: 'testcontainers' };
  return {
    available: false,
    reason: `no ${name} found: ${spec.variable} is not set, nothing answers on ${spec.local.host}:${spec.local.port}, and no Docker engine answers for testcontainers`,
  };
}

export function portOpen(host: string, port: number, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (open: boolean) => {
      socket.destroy();
      resolve(open);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

function dockerEngineLikely(): boolean {
  return Boolean(process.env.DOCKER_HOST) || existsSync('/var/run/docker.sock');
}

const IMAGES: Record<ServiceName, { image: string; port: number; env?: Record<string, string> }> = {
  postgres: {
    image: 'postgres:15',
    port: 5432,
    env: { POSTGRES_HOST_AUTH_METHOD: 'trust', POSTGRES_DB: 'test' },
  },
  rabbitmq: { image: 'rabbitmq:3.13', port: 5672 },
  nats: { image: 'nats:2.10', port: 4222 },
  kafka: { image: 'apache/kafka:3.8.0', port: 9092 },
  sqlserver: {
    image: 'mcr.microsoft.com/mssql/server:2022-latest',
    port: 1433,
    // The Agent runs CDC's capture job, without which sqlserver-cdc never sees a change.
    env: { ACCEPT_EULA: 'Y', MSSQL_SA_PASSWORD: 'QueueBox_Test_1', MSSQL_AGENT_ENABLED: 'true' },
  },
};

/** Starts the service in a container when a Docker engine answers; undefined when none does. */
async function startContainer(name: ServiceName): Promise<string | undefined> {
  if (!dockerEngineLikely()) return undefined;
  try {
    // Loaded only here: without a Docker engine the module is never needed.
    const { GenericContainer } = await import('testcontainers');
    const image = IMAGES[name];
    if (name === 'kafka') return await startKafkaContainer(GenericContainer, image.image);
    let container = new GenericContainer(image.image).withExposedPorts(image.port);
    if (name === 'nats') container = container.withCommand(['-js']);
    if (image.env) container = container.withEnvironment(image.env);
    const started = await container.start();
    const host = started.getHost();
    const port = started.getMappedPort(image.port);
    switch (name) {
      case 'postgres':
        return `postgres://postgres@${host}:${port}/test`;
      case 'rabbitmq':
        return `amqp://guest:guest@${host}:${port}`;
      case 'nats':
        return `nats://${host}:${port}`;
      case 'sqlserver':
        return `sqlserver://sa:QueueBox_Test_1@${host}:${port};databaseName=master`;
    }
  } catch {
    return undefined;
  }
}

/**
 * A one-broker KRaft Kafka. A client reaches the broker at the address the broker advertises, not
 * the one it dialled, so the container listens on a free host port mapped to the same port and
 * advertises `localhost:<port>` (a random mapping would advertise a port nothing answers on).
 */
async function startKafkaContainer(
  GenericContainer: typeof import('testcontainers').GenericContainer,
  image: string,
): Promise<string> {
  const { Wait } = await import('testcontainers');
  const port = await freePort();
  const started = await new GenericContainer(image)
    .withExposedPorts({ container: port, host: port })
    .withEnvironment({
      KAFKA_NODE_ID: '1',
      KAFKA_PROCESS_ROLES: 'broker,controller',
      KAFKA_LISTENERS: `PLAINTEXT://:${port},CONTROLLER://:9093`,
      KAFKA_ADVERTISED_LISTENERS: `PLAINTEXT://localhost:${port}`,
      KAFKA_CONTROLLER_LISTENER_NAMES: 'CONTROLLER',
      KAFKA_LISTENER_SECURITY_PROTOCOL_MAP: 'CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT',
      KAFKA_CONTROLLER_QUORUM_VOTERS: '1@localhost:9093',
      KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR: '1',
      KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR: '1',
      KAFKA_TRANSACTION_STATE_LOG_MIN_ISR: '1',
      KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS: '0',
    })
    .withWaitStrategy(Wait.forLogMessage(/Kafka Server started/))
    .start();
  return `${started.getHost()}:${port}`;
}
