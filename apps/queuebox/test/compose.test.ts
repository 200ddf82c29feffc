import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '@queuebox/config';
import { load } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { brokerConfigs } from '../src/providers.js';

/**
 * docker/compose.yml and docker/Dockerfile, read as files (no Docker engine runs here): the
 * stop grace period covers the shutdown bounds, the observability profile mounts files that
 * exist and point at each other, and the image's health command and Node.js version agree.
 */
const DOCKER = new URL('../../../docker/', import.meta.url);
const read = (path: string) => readFileSync(new URL(path, DOCKER), 'utf8');

interface Service {
  readonly image?: string;
  readonly ports?: readonly string[];
  readonly environment?: Readonly<Record<string, string>>;
  readonly command?: unknown;
  readonly profiles?: readonly string[];
  readonly volumes?: readonly string[];
  readonly stop_grace_period?: string;
  readonly healthcheck?: unknown;
}

const compose = load(read('compose.yml')) as { services: Record<string, Service> };

function seconds(duration: string): number {
  const match = /^(\d+)(ms|s|m)$/.exec(duration);
  if (match === null) throw new Error(`not a compose duration: ${duration}`);
  return Number(match[1]) * { ms: 0.001, s: 1, m: 60 }[match[2] as 'ms' | 's' | 'm'];
}

describe('docker/compose.yml', () => {
  it('gives QueueBox more time to stop than its shutdown bounds (spec §17.2)', () => {
    const demo = loadConfig({
      brokers: brokerConfigs,
      env: {},
      demoConfigYaml: read('queuebox.yml'),
      readFile: () => undefined,
    });
    const timeoutS = demo.outbox.shutdownTimeoutMs / 1000;
    // Drain 5 s, servers max(timeout, 5 s), poller timeout, retention 1.5 s, pool 5 s.
    const bound = 5 + Math.max(timeoutS, 5) + timeoutS + 1.5 + 5;
    const queuebox = compose.services.queuebox!;
    expect(seconds(queuebox.stop_grace_period ?? '10s')).toBeGreaterThan(bound);
    // The image's health command follows the configuration; compose must not pin a port.
    expect(queuebox.healthcheck).toBeUndefined();
  });

  it('runs Prometheus and Grafana with the alert rules and the dashboard in the observability profile', () => {
    const { prometheus, grafana } = compose.services;
    for (const service of [prometheus, grafana])
      expect(service?.profiles).toEqual(['observability']);
    const mounts = [...(prometheus?.volumes ?? []), ...(grafana?.volumes ?? [])].map((volume) => {
      const [host = '', container = ''] = volume.split(':');
      return { host, container };
    });
    for (const { host } of mounts)
      expect(existsSync(fileURLToPath(new URL(host, DOCKER))), host).toBe(true);
    const containerPaths = mounts.map((m) => m.container);
    expect(containerPaths).toContain('/etc/prometheus/alerts.yml');
    expect(mounts.find((m) => m.container === '/etc/prometheus/alerts.yml')?.host).toBe(
      './prometheus/alerts.yml',
    );
    const config = load(read('prometheus/prometheus.yml')) as {
      rule_files: string[];
      scrape_configs: { static_configs: { targets: string[] }[] }[];
    };
    expect(config.rule_files).toEqual(['/etc/prometheus/alerts.yml']);
    expect(config.scrape_configs[0]?.static_configs[0]?.targets).toEqual(['queuebox:8080']);
    const provider = load(read('grafana/provisioning/dashboards/queuebox.yml')) as {
      providers: { options: { path: string } }[];
    };
    const dashboardMount = mounts.find((m) => m.host === './grafana/queuebox.json');
    expect(dashboardMount?.container.startsWith(`${provider.providers[0]?.options.path}/`)).toBe(
      true,
    );
  });
});

describe('the nats profile of docker/compose.yml', () => {
  it('creates both streams before QueueBox starts on docker/queuebox-nats.yml, which reads them', () => {
    const { nats, 'nats-setup': setup, 'queuebox-nats': queuebox } = compose.services;
    for (const service of [nats, setup, queuebox]) expect(service?.profiles).toEqual(['nats']);
    expect(queuebox?.volumes).toEqual(['./queuebox-nats.yml:/etc/queuebox/queuebox.yml:ro']);
    const script = JSON.stringify((setup as { command?: unknown }).command);
    expect(script).toContain("stream add PAYMENTS --subjects 'payments.>'");
    expect(script).toContain("stream add ORDERS --subjects 'orders.>'");
    const config = loadConfig({
      brokers: brokerConfigs,
      env: { NATS_URL: 'nats://nats:4222' },
      demoConfigYaml: read('queuebox-nats.yml'),
      readFile: () => undefined,
    });
    const source = config.sources.payments;
    expect(source).toMatchObject({ type: 'nats', stream: 'PAYMENTS', servers: 'nats://nats:4222' });
    expect(config.destinations['orders-stream']).toMatchObject({ subject: 'orders.{{ topic }}' });
  });
});

describe('the sqlserver profile of docker/compose.yml', () => {
  const names = ['sqlserver', 'sqlserver-setup', 'sqlserver-cdc-table', 'queuebox-sqlserver'];

  it('runs SQL Server 2022 with its Agent, and a QueueBox on docker/queuebox-sqlserver.yml on port 8084', () => {
    for (const name of names) expect(compose.services[name]?.profiles, name).toEqual(['sqlserver']);
    const { sqlserver, 'queuebox-sqlserver': queuebox } = compose.services;
    expect(sqlserver?.image).toBe('mcr.microsoft.com/mssql/server:2022-latest');
    // CDC's capture job is an Agent job: without the Agent, sqlserver-cdc never wakes.
    expect(sqlserver?.environment?.MSSQL_AGENT_ENABLED).toBe('true');
    expect(queuebox?.ports).toEqual(['8084:8080']);
    expect(queuebox?.volumes).toEqual(['./queuebox-sqlserver.yml:/etc/queuebox/queuebox.yml:ro']);
    expect(seconds(queuebox?.stop_grace_period ?? '10s')).toBeGreaterThanOrEqual(90);
  });

  it('gives every profile a host port of its own', () => {
    const hostPorts = Object.values(compose.services).flatMap((service) =>
      (service.ports ?? []).map((port) => port.split(':')[0]),
    );
    expect(new Set(hostPorts).size).toBe(hostPorts.length);
  });

  it('creates the database and enables CDC on it and on the outbox table the migration creates', () => {
    const setup = JSON.stringify(compose.services['sqlserver-setup']?.command);
    expect(setup).toContain('CREATE DATABASE queuebox');
    expect(setup).toContain('EXEC sys.sp_cdc_enable_db');
    const table = JSON.stringify(compose.services['sqlserver-cdc-table']?.command);
    expect(table).toContain("OBJECT_ID('dbo.outbox') IS NULL");
    expect(table).toContain(
      "EXEC sys.sp_cdc_enable_table @source_schema = N'dbo', @source_name = N'outbox', @role_name = NULL, @supports_net_changes = 0",
    );
  });

  it('has a configuration that loads on SQL Server with sqlserver-cdc capture, as compose sets it', () => {
    const env = compose.services['queuebox-sqlserver']?.environment ?? {};
    const config = loadConfig({
      brokers: brokerConfigs,
      env: { ...env },
      demoConfigYaml: read('queuebox-sqlserver.yml'),
      readFile: () => undefined,
    });
    expect(config.database).toMatchObject({
      type: 'sqlserver',
      username: 'sa',
      connection: { hosts: [{ host: 'sqlserver', port: 1433 }], database: 'queuebox' },
    });
    expect(config.database.password.reveal()).toBe(
      compose.services.sqlserver?.environment?.MSSQL_SA_PASSWORD,
    );
    expect(config.outbox.capture).toMatchObject({
      enabled: true,
      mode: 'sqlserver-cdc',
      connection: { hostname: 'sqlserver', trustServerCertificate: true },
    });
  });
});

describe('docker/Dockerfile', () => {
  const dockerfile = read('Dockerfile');

  it('runs an exact Node.js 24 LTS version in both stages, as the demo receiver does', () => {
    const version = /^ARG NODE_VERSION=(\d+\.\d+\.\d+)$/m.exec(dockerfile)?.[1];
    expect(version).toMatch(/^24\./);
    expect(dockerfile.match(/^FROM node:\$\{NODE_VERSION\}-bookworm-slim/gm)).toHaveLength(2);
    expect(compose.services.receiver?.image).toBe(`node:${version}-bookworm-slim`);
  });

  it('checks health with the healthcheck command, not a fixed port', () => {
    expect(dockerfile).toMatch(
      /^HEALTHCHECK .*\\\n\s+CMD \["node", "\/app\/dist\/main\.js", "healthcheck"\]$/m,
    );
    expect(dockerfile).not.toContain('8080/health');
  });
});
