/**
 * YAML blocks that many end-to-end configurations repeat word for word, so that a file's YAML
 * shows only what its test is about. Each is the head of one entry, indented for its place under
 * `destinations:` or `sources:`; a file adds more keys of that entry on the lines after it.
 */

/** The inbox relay off: the test is about the outbox alone. */
export const RELAY_OFF = ['inbox:', '  relay:', '    enabled: false'].join('\n');

/** The inbox relay polling every 50 ms, so a test waits on the relay's work, not its sleep. */
export const FAST_RELAY = ['inbox:', '  relay:', '    pollIntervalMs: 50'].join('\n');

/** The `sink` destination: a real HTTP receiver at `url`. */
export const httpSink = (url: string): string =>
  ['  sink:', '    type: http', `    baseUrl: ${url}`].join('\n');

/** A webhook source `name` at `/<name>`, keyed by `$.id`, typed by `$.type`. */
export const webhookSource = (name: string): string =>
  [
    `  ${name}:`,
    `    path: /${name}`,
    '    idempotencyKeyPath: $.id',
    '    eventTypePath: $.type',
  ].join('\n');

/** A `filter` for a source entry: a webhook that carries an `X-Drop` header is filtered out. */
export const dropFilter = (): string =>
  ['    filter:', '      exclude:', '        - header: X-Drop', '          exists: true'].join(
    '\n',
  );
