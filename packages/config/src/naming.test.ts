import { Secret } from '@queuebox/core';
import { describe, expect, it } from 'vitest';
import { envNameToSegments, isServiceLinkName, segmentsToEnvName } from './env-names.js';
import { describeConfig, envKeyToYamlPath, loadConfig, yamlPathToEnvKey } from '../test/brokers.js';
import { nearest, normalizeKey, osaDistance } from './suggest.js';

describe('near-miss suggestions', () => {
  it('measures the optimal string alignment distance', () => {
    expect(osaDistance('batchsize', 'batchsize')).toBe(0);
    expect(osaDistance('batchszie', 'batchsize')).toBe(1);
    expect(osaDistance('ca', 'abc')).toBe(3);
    expect(osaDistance('', 'abc')).toBe(3);
  });

  it('normalises case, - and _', () => {
    expect(normalizeKey('poll_interval-MS')).toBe('pollintervalms');
    expect(nearest('POLL_INTERVALL_MS', ['batchSize', 'pollIntervalMs'])).toBe('pollIntervalMs');
  });

  it('allows 1 edit up to 4 characters and 2 beyond', () => {
    expect(nearest('urk', ['url'])).toBe('url');
    expect(nearest('uxk', ['url'])).toBeUndefined();
    expect(nearest('timeoutMz', ['timeoutMs'])).toBe('timeoutMs');
    expect(nearest('tiemotMz', ['timeoutMs'])).toBeUndefined();
  });
});

describe('variable names (spec §13)', () => {
  it('maps a variable to a path and back', () => {
    expect(envNameToSegments('QUEUEBOX_OUTBOX_POLLINTERVALMS')).toEqual([
      'outbox',
      'pollintervalms',
    ]);
    expect(envNameToSegments('QUEUEBOX_DESTINATIONS_MY__API_BASEURL')).toEqual([
      'destinations',
      'my_api',
      'baseurl',
    ]);
    expect(envKeyToYamlPath('QUEUEBOX_ROUTES_0_TOPICPATTERN')).toBe('routes.0.topicpattern');
    expect(segmentsToEnvName(['destinations', 'my_api', 'baseUrl'])).toBe(
      'QUEUEBOX_DESTINATIONS_MY__API_BASEURL',
    );
    expect(yamlPathToEnvKey('routes[0].topicPattern')).toBe('QUEUEBOX_ROUTES_0_TOPICPATTERN');
  });

  it('recognises Kubernetes service-link names', () => {
    for (const name of [
      'QUEUEBOX_SERVICE_HOST',
      'QUEUEBOX_DB_SERVICE_PORT',
      'QUEUEBOX_DB_SERVICE_PORT_HTTP',
      'QUEUEBOX_PORT',
      'QUEUEBOX_PORT_8080_TCP',
      'QUEUEBOX_PORT_8080_UDP_ADDR',
    ]) {
      expect(isServiceLinkName(name)).toBe(true);
    }
    expect(isServiceLinkName('QUEUEBOX_SERVER_HTTPPORT')).toBe(false);
  });
});

describe('describeConfig', () => {
  it('prints secrets, URL passwords and static headers masked', () => {
    const config = loadConfig({
      env: {
        QUEUEBOX_DATABASE_URL: 'postgres://app:dbpass@db/q?password=x',
        QUEUEBOX_DESTINATIONS_R_TYPE: 'rabbitmq',
        QUEUEBOX_DESTINATIONS_R_URL: 'amqp://guest:amqppass@rabbit',
        QUEUEBOX_DESTINATIONS_R_EXCHANGE: 'e',
        QUEUEBOX_DESTINATIONS_R_HEADERS_X__API__KEY: 'headerpass',
      },
      readFile: () => undefined,
    });
    const text = describeConfig(config);
    for (const secret of ['dbpass', 'amqppass', 'headerpass', '"x"'])
      expect(text).not.toContain(secret);
    expect(text).toContain('amqp://guest:***@rabbit');
    expect(config.database.password).toBeInstanceOf(Secret);
  });
});
