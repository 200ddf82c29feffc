/**
 * The YAML pieces the app's test configurations share, so that a suite's own YAML says only
 * what the suite is about. Each piece starts at column 0 and ends with a newline, to sit between
 * others in a template literal.
 */

/** The relay switched off: the suite watches the outbox side alone. */
export const RELAY_OFF = `inbox:
  relay:
    enabled: false
`;

export interface SinkRouteOptions {
  /** The destination's name; `sink` unless given. */
  readonly name?: string;
  readonly path?: string;
  readonly timeoutMs?: number;
  /** The one route's pattern; every topic unless given. */
  readonly topicPattern?: string;
}

/** One HTTP destination at `baseUrl` and one route to it. */
export function sinkRoute(baseUrl: string, options: SinkRouteOptions = {}): string {
  const name = options.name ?? 'sink';
  const path = options.path === undefined ? '' : `    path: ${options.path}\n`;
  const timeout = options.timeoutMs === undefined ? '' : `    timeoutMs: ${options.timeoutMs}\n`;
  return `destinations:
  ${name}:
    type: http
    baseUrl: ${baseUrl}
${path}${timeout}routes:
  - topicPattern: "${options.topicPattern ?? '**'}"
    destination: ${name}
`;
}

/** A destination nothing reaches: the configuration needs one, the suite delivers nothing. */
export const UNREACHABLE_SINK = sinkRoute('http://127.0.0.1:9');

/** The webhook source `hooks` at /inbox/hooks, keyed by `$.id`, its event type at `$.type`. */
export const HOOKS_SOURCE = `sources:
  hooks:
    path: /hooks
    idempotencyKeyPath: $.id
    eventTypePath: $.type
`;

/** The HTTP source `orders` at /inbox/orders, keyed by `$.id`, each row's topic its name. */
export const ORDERS_SOURCE = `sources:
  orders:
    type: http
    path: /orders
    idempotencyKeyPath: $.id
    topic: "{{ source }}"
`;
