import { silentLogger, type Logger } from '@queuebox/core';
import { freePort, type FreshDatabase } from '@queuebox/testing';
import type { ProviderRegistry } from '../src/providers.js';
import { startService, type RunningService } from '../src/startup/service.js';
import { databaseEnv } from './process.js';

/**
 * Starts the real service in this process on a test database with the given YAML; `providers`
 * replaces the provider registry (kafka-e2e.ts: Kafka clients that dial a fault proxy).
 */
export async function startTestService(
  db: Pick<FreshDatabase, 'jdbcUrl' | 'user'>,
  yaml: string,
  env: Record<string, string> = {},
  logger: Logger = silentLogger,
  providers?: ProviderRegistry,
): Promise<RunningService & { readonly base: string }> {
  const port = await freePort();
  const service = await startService({
    logger,
    hostname: '127.0.0.1',
    ...(providers === undefined ? {} : { providers }),
    env: {
      ...databaseEnv(db, yaml),
      QUEUEBOX_SERVER_HTTPPORT: String(port),
      ...env,
    },
  });
  return { ...service, base: `http://127.0.0.1:${service.dataPort}` };
}

export async function eventually<T>(
  check: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
