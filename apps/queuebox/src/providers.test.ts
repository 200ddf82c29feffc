import { describe, expect, it } from 'vitest';
import { loadConfig } from '@queuebox/config';
import { silentLogger, systemClock, type BrokerProvider } from '@queuebox/core';
import { descriptor as rabbitDescriptor } from '@queuebox/rabbitmq/descriptor';
import { brokerAddressRules, freePort } from '@queuebox/testing';
import {
  broker,
  brokerConfigs,
  brokerRegistered,
  captureRegistered,
  checkProviders,
  database,
  loadBrokerProvider,
  loadBrokerConfigs,
  loadCaptureProvider,
  loadDatabaseProvider,
  providers,
  type BrokerProviderModule,
  type ProviderRegistry,
} from './providers.js';

/** A broker provider of the right shape; its factories are never called here. */
const shapedBroker: BrokerProvider = {
  kind: 'broker',
  name: 'rabbitmq',
  descriptor: rabbitDescriptor,
  createPublisher: () => {
    throw new Error('not called');
  },
  createSourceConsumer: () => {
    throw new Error('not called');
  },
};

// A specifier the compiler cannot see, as a package left out of the install is to Node.
const ABSENT = '@queuebox/absent-broker';
const importAbsent = () => import(ABSENT) as Promise<BrokerProviderModule>;

describe('the provider registry', () => {
  it('loads every provider of this build', async () => {
    expect(await checkProviders()).toEqual([]);
    expect(Object.keys(providers)).toEqual([
      'postgresql',
      'postgres-logical',
      'sqlserver',
      'sqlserver-cdc',
      'rabbitmq',
      'nats',
      'kafka',
    ]);
    expect((await loadDatabaseProvider('postgresql')).name).toBe('postgresql');
    expect((await loadDatabaseProvider('sqlserver')).name).toBe('sqlserver');
    expect((await loadCaptureProvider('postgres-logical')).name).toBe('postgres-logical');
    expect(captureRegistered('postgres-logical')).toBe(true);
    expect(captureRegistered('sqlserver-cdc')).toBe(true);
    expect((await loadCaptureProvider('sqlserver-cdc')).name).toBe('sqlserver-cdc');
    expect(captureRegistered('polling')).toBe(false);
    await expect(loadCaptureProvider('polling')).rejects.toThrow(
      "The capture mode 'polling' is not part of this build of QueueBox.",
    );
  });

  it('fails naming the provider and the package when the package is missing', async () => {
    const registry: ProviderRegistry = { rabbitmq: broker(ABSENT, importAbsent) };
    const [problem, ...rest] = await checkProviders(registry);
    expect(rest).toEqual([]);
    expect(problem).toMatch(
      /^The provider 'rabbitmq' is missing: add the package @queuebox\/absent-broker to the QueueBox runtime install\. Reason: .*absent-broker/,
    );
  });

  it('fails naming the provider, the package and the shape when the export is wrong', async () => {
    const withoutConsumer = {
      kind: shapedBroker.kind,
      name: shapedBroker.name,
      descriptor: shapedBroker.descriptor,
      createPublisher: () => shapedBroker.createPublisher({} as never, {} as never),
    };
    const { descriptor: _descriptor, ...undescribed } = shapedBroker;
    const registry: ProviderRegistry = {
      rabbitmq: broker('@queuebox/rabbitmq', () =>
        Promise.resolve({ provider: withoutConsumer as unknown as BrokerProvider }),
      ),
      nats: broker('@queuebox/nats', () => Promise.resolve({ provider: shapedBroker })),
      postgresql: database('@queuebox/postgres', () =>
        Promise.resolve({ provider: shapedBroker as never }),
      ),
      kafka: broker('@queuebox/kafka', () => Promise.resolve({} as BrokerProviderModule)),
      'no-descriptor': broker('@queuebox/rabbitmq', () =>
        Promise.resolve({ provider: { ...undescribed, name: 'no-descriptor' } as never }),
      ),
    };
    expect(await checkProviders(registry)).toEqual([
      "The provider 'rabbitmq' in @queuebox/rabbitmq does not export the expected shape (a broker provider named 'rabbitmq' with createPublisher and createSourceConsumer). Reinstall @queuebox/rabbitmq at the version of the app.",
      "The provider 'nats' in @queuebox/nats does not export the expected shape (a broker provider named 'nats' with createPublisher and createSourceConsumer). Reinstall @queuebox/nats at the version of the app.",
      "The provider 'postgresql' in @queuebox/postgres does not export the expected shape (a database provider named 'postgresql' with open). Reinstall @queuebox/postgres at the version of the app.",
      "The provider 'kafka' in @queuebox/kafka does not export the expected shape (a broker provider named 'kafka' with createPublisher and createSourceConsumer). Reinstall @queuebox/kafka at the version of the app.",
      "The provider 'no-descriptor' in @queuebox/rabbitmq does not export the expected shape (a broker provider named 'no-descriptor' with createPublisher and createSourceConsumer). Reinstall @queuebox/rabbitmq at the version of the app.",
    ]);
  });

  it("gives each broker's descriptor, the same that service tests take from @queuebox/testing", async () => {
    const described = new Map<string, unknown>();
    for (const type of ['rabbitmq', 'kafka', 'nats'] as const) {
      const provider = await loadBrokerProvider(type);
      expect(provider.descriptor.name).toBe(type);
      described.set(type, provider.descriptor.address);
    }
    expect(described).toEqual(brokerAddressRules);
  });

  it("gives the configuration each broker's block, from the descriptor the provider carries", async () => {
    const brokers = Object.entries(providers).filter(([, entry]) => entry.kind === 'broker');
    expect(brokerConfigs.map((descriptor) => descriptor.name)).toEqual(
      brokers.map(([name]) => name),
    );
    for (const descriptor of brokerConfigs) {
      expect((await loadBrokerProvider(descriptor.name)).descriptor).toBe(descriptor);
    }
    // A broker whose descriptor cannot load contributes no block; checkProviders names it.
    const registry: ProviderRegistry = {
      kafka: broker('@queuebox/kafka', importAbsent, importAbsent as never),
    };
    expect(await loadBrokerConfigs(registry)).toEqual([]);
  });

  it('knows which broker kinds this build has, and loads a registered one', async () => {
    expect(brokerRegistered('rabbitmq')).toBe(true);
    expect(brokerRegistered('nats')).toBe(true);
    expect(brokerRegistered('kafka')).toBe(true);
    expect((await loadBrokerProvider('kafka')).name).toBe('kafka');
    const registry: ProviderRegistry = {
      rabbitmq: broker('@queuebox/rabbitmq', () => Promise.resolve({ provider: shapedBroker })),
    };
    expect(brokerRegistered('rabbitmq', registry)).toBe(true);
    expect(brokerRegistered('kafka', registry)).toBe(false);
    expect(await loadBrokerProvider('rabbitmq', registry)).toBe(shapedBroker);
    await expect(loadBrokerProvider('kafka', registry)).rejects.toThrow(
      "The broker 'kafka' is not part of this build of QueueBox.",
    );
  });

  it('fails naming the Kafka provider and @queuebox/kafka when that package is missing', async () => {
    const registry: ProviderRegistry = { kafka: broker('@queuebox/kafka', importAbsent) };
    const [problem, ...rest] = await checkProviders(registry);
    expect(rest).toEqual([]);
    expect(problem).toMatch(
      /^The provider 'kafka' is missing: add the package @queuebox\/kafka to the QueueBox runtime install\. Reason: /,
    );
  });

  it('refuses a database type this build does not have', async () => {
    const registry: ProviderRegistry = { postgresql: providers.postgresql };
    await expect(loadDatabaseProvider('sqlserver', registry)).rejects.toThrow(
      "The provider 'sqlserver' is not part of this build of QueueBox. Use database.type postgresql.",
    );
  });

  it('takes database.type sqlserver to the SQL Server provider, which meets a closed port', async () => {
    const config = await sqlServerAtClosedPort({ QUEUEBOX_DATABASE_STARTUPTIMEOUTMS: '1000' });
    const provider = await loadDatabaseProvider(config.database.type);
    expect(provider.name).toBe('sqlserver');
    const opened = provider.open(config, { logger: silentLogger, clock: systemClock });
    await expect(opened).rejects.toThrow(
      /^The database did not answer inside 1000 ms, after \d+ attempt\(s\)\..*Last reason: ConnectionError: Failed to connect to 127\.0\.0\.1:\d+/,
    );
    await expect(opened).rejects.not.toThrow(
      /not-a-real-password|not part of this build|not built/,
    );
  });

  it('takes outbox.capture.mode sqlserver-cdc to the SQL Server capture source, which meets a closed port', async () => {
    const config = await sqlServerAtClosedPort({
      QUEUEBOX_OUTBOX_CAPTURE_ENABLED: 'true',
      QUEUEBOX_OUTBOX_CAPTURE_MODE: 'sqlserver-cdc',
      QUEUEBOX_OUTBOX_CAPTURE_STATEDIRECTORY: '/var/lib/queuebox/capture',
    });
    const provider = await loadCaptureProvider(config.outbox.capture.mode);
    const opened = provider.createCaptureSource(config, { logger: silentLogger }).open();
    await expect(opened).rejects.toThrow(/Failed to connect to 127\.0\.0\.1:\d+/);
    await expect(opened).rejects.not.toThrow(/not-a-real-password|not part of this build/);
  });
});

/**
 * A SQL Server configuration whose server is a port on 127.0.0.1 nothing listens on (it was
 * free a moment ago), with a password that must never show in an error, and `extra` settings.
 */
async function sqlServerAtClosedPort(extra: Record<string, string>) {
  const port = await freePort();
  return loadConfig({
    brokers: brokerConfigs,
    env: {
      QUEUEBOX_DATABASE_TYPE: 'sqlserver',
      QUEUEBOX_DATABASE_URL: `jdbc:sqlserver://127.0.0.1:${port};databaseName=queuebox;encrypt=false`,
      QUEUEBOX_DATABASE_USERNAME: 'sa',
      QUEUEBOX_DATABASE_PASSWORD: 'not-a-real-password',
      QUEUEBOX_DATABASE_CONNECTIONTIMEOUTMS: '1000',
      ...extra,
    },
    readFile: () => undefined,
  });
}
