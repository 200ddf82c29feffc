import { ConfigError, loadConfig } from '@queuebox/config';
import { sanitize, toError } from '@queuebox/core';
import { readDemoConfig } from '../startup/demo-config.js';
import type { CommandOutput } from './config-command.js';
import { brokerConfigs } from '../providers.js';

/**
 * `queuebox healthcheck`, the image's HEALTHCHECK: reads the same configuration as the service
 * (so it follows `server.managementPort` and `server.httpPort` wherever they are set) and asks
 * the readiness route of the QueueBox on this host. 0 when it answers 200; 1 when it answers
 * anything else, does not answer in time, or the configuration does not load. A fixed
 * `GET :8080/health` made every container with a management port or another HTTP port
 * unhealthy (spec §11.4).
 *
 * Readiness bounds each component at 3 s, so the default wait of 3.5 s lets a slow component
 * report itself down rather than time the whole answer out.
 */
export const DEFAULT_HEALTHCHECK_TIMEOUT_MS = 3500;
const HOST = '127.0.0.1';

export async function runHealthcheck(
  env: Readonly<Record<string, string | undefined>>,
  timeoutMs: number | null,
  out: CommandOutput,
): Promise<number> {
  let port: number;
  try {
    const config = loadConfig({ env, demoConfigYaml: readDemoConfig(), brokers: brokerConfigs });
    port = config.server.managementPort ?? config.server.httpPort;
  } catch (error: unknown) {
    const reason = error instanceof ConfigError ? error.message : sanitize(toError(error).message);
    out.stderr(`unhealthy: the configuration does not load. ${reason}`);
    return 1;
  }
  const url = `http://${HOST}:${port}/health/ready`;
  const wait = timeoutMs ?? DEFAULT_HEALTHCHECK_TIMEOUT_MS;
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(wait) });
    const body = (await response.text()).slice(0, 2000);
    if (response.status === 200) {
      out.stdout(`healthy: ${url} answered 200 ${body}`);
      return 0;
    }
    out.stderr(`unhealthy: ${url} answered ${response.status} ${body}`);
    return 1;
  } catch (error: unknown) {
    const reason =
      error instanceof Error && error.name === 'TimeoutError'
        ? `no answer within ${wait} ms`
        : sanitize(causeText(error));
    out.stderr(`unhealthy: ${url} did not answer (${reason})`);
    return 1;
  }
}

/** fetch's own message is "fetch failed"; the reason (ECONNREFUSED ...) is in its cause. */
function causeText(error: unknown): string {
  const cause = (error as { cause?: unknown }).cause;
  return toError(cause ?? error).message;
}
