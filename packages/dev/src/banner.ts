import { compileTopicPattern, type AppConfig, type HttpSourceConfig } from '@queuebox/core';
import type { EmbeddedPostgresAddress } from './embedded-postgres.js';
import { LOOPBACK } from './ports.js';

export interface DevBannerInput {
  readonly config: AppConfig;
  readonly postgres: EmbeddedPostgresAddress;
  readonly dataPort: number;
  readonly managementPort: number | null;
  readonly receiverUrl: string;
  /** The idempotency key of the example webhooks; a new one per start, so the first post is never a duplicate. */
  readonly exampleId: string;
}

/**
 * The text `queuebox dev` prints once it is up: where an application writes outbox rows, a ready
 * `curl` line per HTTP source, where deliveries go, and where health and metrics are. Secrets of
 * the configuration are never printed; a source with authentication gets a placeholder.
 */
export function devBanner(input: DevBannerInput): string {
  const { config, postgres } = input;
  const base = `http://${LOOPBACK}:${input.dataPort}`;
  const managementBase =
    input.managementPort === null ? base : `http://${LOOPBACK}:${input.managementPort}`;
  const inboxTopic = exampleTopic(config, 'first');
  const outboxTopic = exampleTopic(config, 'last') ?? 'order.created';
  const columns = config.database.columnMapping.outbox;

  const lines = [
    '',
    `QueueBox dev is running on an embedded PostgreSQL ${postgres.version} (data in ${postgres.dataDir}${postgres.dataDirMovedBecause === null ? '' : `, kept there because ${postgres.dataDirMovedBecause}`}).`,
    '',
    `PostgreSQL URL for your application (write outbox rows here): ${postgres.url}`,
    `  for example: INSERT INTO ${config.database.outboxTableName} (${columns.topic}, ${columns.payload}) ` +
      `VALUES ('${outboxTopic}', '{"orderId": 42}');`,
  ];
  const sources = Object.entries(config.sources);
  if (sources.length > 0) lines.push('', 'Inbox sources (post webhooks here):');
  for (const [name, source] of sources) {
    if (source.type !== 'http') {
      lines.push(`  ${name}: consumes from ${source.type}`);
      continue;
    }
    const url = `${base}${routePath(config.inbox.basePath, source.path)}`;
    lines.push(`  ${name}: ${url}`);
    lines.push(
      `    ${curlLine(url, source, inboxTopic ?? `${name}.created`, `${input.exampleId}-${name}`)}`,
    );
  }
  lines.push(
    '',
    `Deliveries of the demo configuration go to the demo receiver at ${input.receiverUrl} (RECEIVER_URL), which logs each one.`,
    `Health: ${managementBase}/health   Metrics: ${managementBase}/metrics`,
    'Press Ctrl-C to stop (QueueBox drains, then PostgreSQL stops; the data stays for the next start).',
    '',
  );
  return lines.join('\n');
}

/** A topic that a route matches: `payment.*` gives `payment.created`, `**` gives `example`. */
export function exampleTopic(config: AppConfig, which: 'first' | 'last'): string | null {
  const routes = which === 'first' ? config.routes : [...config.routes].reverse();
  for (const route of routes) {
    const topic = route.topicPattern.replaceAll('**', 'example').replaceAll('*', 'created');
    try {
      if (compileTopicPattern(route.topicPattern).test(topic)) return topic;
    } catch {
      // A pattern the router would refuse has no example.
    }
  }
  return null;
}

/** The webhook as a `curl` command: the body carries the key and type where the source reads them. */
export function curlLine(
  url: string,
  source: HttpSourceConfig,
  eventType: string,
  key: string,
): string {
  const body: Record<string, unknown> = {};
  const headers: string[] = ['Content-Type: application/json'];
  const placeAttribute = (paths: readonly string[], header: string | null, value: string) => {
    const path = paths.find(isSimplePath);
    if (path !== undefined) setPath(body, path, value);
    else if (header !== null) headers.push(`${header}: ${value}`);
  };
  placeAttribute(source.idempotencyKeyPath, source.idempotencyKeyHeader, key);
  placeAttribute(source.eventTypePath, source.eventTypeHeader, eventType);
  if (Object.keys(body).length === 0) body.example = true;
  if (source.auth?.type === 'bearer') headers.push('Authorization: Bearer $TOKEN');
  if (source.auth?.type === 'api-key') headers.push(`${source.auth.headerName}: $API_KEY`);
  const auth =
    source.auth?.type === 'hmac' ? `  # also sign the body: ${source.auth.headerName} (hmac)` : '';
  const headerArgs = headers.map((header) => `-H ${shellQuote(header)}`).join(' ');
  return `curl -X POST ${url} ${headerArgs} -d ${shellQuote(JSON.stringify(body))}${auth}`;
}

function isSimplePath(path: string): boolean {
  return /^\$(\.[A-Za-z_][A-Za-z0-9_-]*)+$/.test(path);
}

function setPath(target: Record<string, unknown>, path: string, value: string): void {
  const keys = path.slice(2).split('.');
  let node = target;
  for (const [i, key] of keys.entries()) {
    if (i === keys.length - 1) {
      node[key] = value;
    } else {
      const next = node[key];
      node =
        typeof next === 'object' && next !== null
          ? (next as Record<string, unknown>)
          : (node[key] = {});
    }
  }
}

function routePath(basePath: string, path: string): string {
  return `/${[basePath, path]
    .flatMap((part) => part.split('/'))
    .filter((s) => s !== '')
    .join('/')}`;
}

function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}
