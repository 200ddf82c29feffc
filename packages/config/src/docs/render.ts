/**
 * Writes docs/configuration.md from the schema: every key table lists the keys the schema takes,
 * in schema order, with the type and default the schema gives them; `key-docs.ts` adds the rule
 * text (and names a type or default the schema cannot say, such as "the URL's host"). The prose
 * between the tables is the template beside this package.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { transformBlock } from '../schema/blocks.js';
import { configSchemas } from '../schema/config.js';
import { contributedEntries, type BrokerConfigSource } from '../schema/contributed.js';
import { destinationCommon, destinationKinds } from '../schema/destinations.js';
import { asNode, structure, type Node } from '../schema/kit.js';
import { sourceKinds, sourceShared } from '../schema/sources.js';
import { KEY_DOCS, type KeyDoc } from './key-docs.js';

export const TEMPLATE = fileURLToPath(
  new URL('../../docs/configuration.template.md', import.meta.url),
);

interface Table {
  readonly entries: Readonly<Record<string, Node>>;
  /** Written before every key of the table (`server.`). */
  readonly prefix?: string;
  /** Keys of nested sections listed key by key. */
  readonly flatten?: readonly string[];
  readonly omit?: readonly string[];
  /** A first row for the `type` key of a kinded block. */
  readonly type?: boolean;
}

const entriesOf = (node: Node): Readonly<Record<string, Node>> => structure(node).entries ?? {};
const nodes = (entries: object): Readonly<Record<string, Node>> => entries as Record<string, Node>;
const kindKeys = (kind: object, shared: object): string[] =>
  Object.keys(kind).filter((key) => !Object.hasOwn(shared, key));

type KeyDocs = Readonly<Record<string, Readonly<Record<string, KeyDoc | null>>>>;

/** The key tables and their texts for the given brokers, in the order given. */
interface Docs {
  readonly tables: Readonly<Record<string, Table>>;
  readonly texts: KeyDocs;
}

function docsFor(brokers: readonly BrokerConfigSource[]): Docs {
  const { schema, brokers: kinds } = configSchemas(brokers);
  const root = entriesOf(asNode(schema));
  const block = (name: string): Readonly<Record<string, Node>> => entriesOf(root[name] as Node);
  const destinationTables = Object.fromEntries([
    ...Object.entries(destinationKinds).map(([kind, keys]) => [
      `destinations.${kind}`,
      { entries: nodes(keys), omit: Object.keys(destinationCommon) },
    ]),
    ...kinds.map((kind) => [
      `destinations.${kind.name}`,
      { entries: nodes(contributedEntries(kind.block.destination)) },
    ]),
  ]) as Record<string, Table>;
  const tables: Record<string, Table> = {
    server: { entries: block('server'), prefix: 'server.' },
    database: { entries: block('database'), prefix: 'database.', flatten: ['columnMapping'] },
    outbox: {
      entries: block('outbox'),
      prefix: 'outbox.',
      flatten: ['capture', 'capture.connection'],
    },
    inbox: { entries: block('inbox'), prefix: 'inbox.', flatten: ['relay'] },
    http: { entries: block('http'), prefix: 'http.' },
    admin: { entries: block('admin'), prefix: 'admin.' },
    destinations: { entries: nodes(destinationCommon), type: true, flatten: ['circuitBreaker'] },
    ...destinationTables,
    routes: { entries: entriesOf(structure(root.routes as Node).item as Node) },
    sources: { entries: nodes(sourceShared), type: true, flatten: ['rateLimit'] },
    'sources.http': { entries: nodes(sourceKinds.http), omit: kindKeys(sourceShared, {}) },
    transform: { entries: entriesOf(asNode(transformBlock)) },
    retention: { entries: block('retention'), prefix: 'retention.', flatten: ['outbox'] },
  };
  const types = ['http', ...kinds.map((kind) => kind.name)].map((name) => `\`${name}\``);
  const typeRow = (name: string): Record<string, KeyDoc | null> => ({
    ...KEY_DOCS[name],
    type: { ...KEY_DOCS[name]?.type, rule: types.join(' | ') },
  });
  const texts: KeyDocs = {
    ...KEY_DOCS,
    destinations: typeRow('destinations'),
    sources: typeRow('sources'),
    ...Object.fromEntries(
      kinds.map((kind) => [`destinations.${kind.name}`, kind.block.destination.docs ?? {}]),
    ),
  };
  return { tables, texts };
}

/** The type the schema gives a key: its scalar's label, or the shape of what it holds. */
function typeOf(node: Node): string {
  const label = metadataOf(node)?.docType;
  if (typeof label === 'string') return label;
  const shape = structure(node);
  if (shape.entries !== undefined || shape.options !== undefined) return 'block';
  return shape.type === 'array' ? 'list' : 'string';
}

function metadataOf(node: Node): Readonly<Record<string, unknown>> | undefined {
  if (node.wrapped !== undefined) return metadataOf(node.wrapped);
  for (const item of node.pipe ?? []) {
    if (item.type === 'metadata') return item.metadata;
    if (item !== node && item.kind === 'schema') {
      const inner = metadataOf(item);
      if (inner !== undefined) return inner;
    }
  }
  return undefined;
}

function defaultOf(node: Node): string {
  if (node.type !== 'optional') return 'required';
  const value = node.default;
  if (value === null) return 'none';
  if (typeof value === 'string') return value === '' ? '`""`' : `\`${value}\``;
  return '`{}`';
}

function hasKey(entries: Readonly<Record<string, Node>>, path: string): boolean {
  const [first = '', ...rest] = path.split('.');
  const node = entries[first];
  return node !== undefined && (rest.length === 0 || hasKey(entriesOf(node), rest.join('.')));
}

const cell = (text: string): string => text.replace(/\|/g, '\\|');
const row = (cells: readonly string[]): string =>
  `|${cells.map((text) => (text === '' ? ' ' : ` ${cell(text)} `)).join('|')}|`;

function rows(
  texts: KeyDocs,
  name: string,
  table: Table,
  entries = table.entries,
  at = '',
): string[] {
  const lines: string[] = [];
  for (const [key, node] of Object.entries(entries)) {
    const path = `${at}${key}`;
    if (table.omit?.includes(path) === true) continue;
    if (table.flatten?.includes(path) === true) {
      lines.push(...rows(texts, name, table, entriesOf(node), `${path}.`));
      continue;
    }
    const doc = texts[name]?.[path];
    if (doc === null) continue;
    const shown =
      doc?.key ??
      `\`${table.prefix ?? ''}${path}${structure(node).type === 'record' ? '.<name>' : ''}\``;
    lines.push(
      row([shown, doc?.type ?? typeOf(node), doc?.default ?? defaultOf(node), doc?.rule ?? '']),
    );
  }
  return lines;
}

export function renderTable(name: string, brokers: readonly BrokerConfigSource[]): string {
  const { tables, texts } = docsFor(brokers);
  const table = tables[name];
  if (table === undefined) throw new Error(`no key table ${name}`);
  // A text for a key the schema no longer takes would vanish unseen; make it fail instead.
  for (const path of Object.keys(texts[name] ?? {})) {
    if (path !== 'type' && !hasKey(table.entries, path)) throw new Error(`${name}: no key ${path}`);
  }
  const type = texts[name]?.type;
  const head = ['| Key | Type | Default | Rule |', '| --- | --- | --- | --- |'];
  const typeRow =
    table.type === true && type !== null && type !== undefined
      ? [row(['`type`', type.type ?? 'enum', type.default ?? 'required', type.rule ?? ''])]
      : [];
  return [...head, ...typeRow, ...rows(texts, name, table)].join('\n');
}

/** The committed document. */
export const DOCUMENT = fileURLToPath(
  new URL('../../../../docs/configuration.md', import.meta.url),
);

/** The document for the given brokers (the app hands the registry's descriptors). */
export function renderConfigurationDoc(
  brokers: readonly BrokerConfigSource[],
  template = readFileSync(TEMPLATE, 'utf8'),
): string {
  return template.replace(/^<!-- keys: (\S+) -->$/gm, (_, name: string) =>
    renderTable(name, brokers),
  );
}
