/**
 * The raw input: one YAML document and the `QUEUEBOX_*` variables, read into one merged, untyped
 * tree before the schema reads it. Every scalar remembers the variable that set it (if any),
 * because a problem must name the variable rather than a YAML path the operator never wrote.
 */
import {
  boolCoreTag,
  FAILSAFE_SCHEMA,
  floatCoreTag,
  intCoreTag,
  loadAll,
  mapTag,
  mergeTag,
  nullCoreTag,
  type ScalarTagDefinition,
  YAMLException,
} from 'js-yaml';
import {
  CONFIG_FILE_VARIABLE,
  ENV_PREFIX,
  envNameToSegments,
  isServiceLinkName,
} from './env-names.js';
import type { Path, Problems } from './problems.js';
import { normalizeKey } from './suggest.js';

export interface RawScalar {
  readonly kind: 'scalar';
  /** Text as written; a number or boolean only for an explicit YAML tag (`!!int 5`). */
  readonly value: string | number | boolean;
  /** The variable that set this value; undefined when it came from a YAML file. */
  readonly env?: string;
}

/** A YAML `~`/`null`/empty value: the key is present but sets nothing. */
export interface RawNull {
  readonly kind: 'null';
}

export interface RawEntry {
  /** The key as its source wrote it (variables give lower case). */
  readonly written: string;
  readonly node: RawNode;
}

export interface RawMap {
  readonly kind: 'map';
  readonly entries: readonly RawEntry[];
}

export interface RawList {
  readonly kind: 'list';
  readonly items: readonly RawNode[];
}

export type RawNode = RawScalar | RawNull | RawMap | RawList;

/**
 * Overlays variables on the file: maps merge key by key (keys match as YAML keys do, ignoring
 * case, `-` and `_`), while a list or a value set by variables replaces the file's entirely.
 */
export function mergeNodes(base: RawNode | undefined, over: RawNode): RawNode {
  if (base?.kind !== 'map' || over.kind !== 'map') return over;
  const entries = [...base.entries];
  for (const entry of over.entries) {
    const key = normalizeKey(entry.written);
    const index = entries.findIndex((existing) => normalizeKey(existing.written) === key);
    if (index < 0) {
      entries.push(entry);
    } else {
      const existing = entries[index];
      if (existing !== undefined) {
        entries[index] = { written: existing.written, node: mergeNodes(existing.node, entry.node) };
      }
    }
  }
  return { kind: 'map', entries };
}

/** Where each variable's value ended up, for the ` (set by ...)` suffix. */
export function envPaths(root: RawNode): Map<string, Path> {
  const found = new Map<string, Path>();
  const walk = (node: RawNode, path: (string | number)[]): void => {
    if (node.kind === 'scalar' && node.env !== undefined) found.set(node.env, path);
    else if (node.kind === 'map') node.entries.forEach((e) => walk(e.node, [...path, e.written]));
    else if (node.kind === 'list') node.items.forEach((item, i) => walk(item, [...path, i]));
  };
  walk(root, []);
  return found;
}

/** Whether a YAML file wrote anything inside `node` (an empty section counts). */
export function hasFileContent(node: RawNode): boolean {
  switch (node.kind) {
    case 'scalar':
      return node.env === undefined;
    case 'null':
      return true;
    case 'map':
      return node.entries.length === 0 || node.entries.some((e) => hasFileContent(e.node));
    case 'list':
      return node.items.length === 0 || node.items.some(hasFileContent);
  }
}

/*
 * Reads one YAML document into the raw tree. Every scalar stays text (failsafe schema plus
 * `null` and merge keys): the schema decides what a value means, exactly as for variables, so
 * `password: 0123` keeps its leading zero, `enabled: yes` stays the text `yes` (no YAML 1.1
 * booleans), and `"8080"` and `8080` both read as a port. `!!bool`, `!!int` and `!!float` are
 * honoured only when written explicitly, with YAML 1.2 core forms (`!!bool yes` is an error).
 * `${NAME}` and `${NAME:-fallback}` placeholders are resolved here from the environment.
 */
const explicitOnly = <T>(tag: ScalarTagDefinition<T>): ScalarTagDefinition<T> => ({
  ...tag,
  implicit: false,
});

// mapTag: plain-object maps; a complex key (`? [a, b]`) is a YAML error rather than the text "a,b".
const SCHEMA = FAILSAFE_SCHEMA.withTags(
  mapTag,
  nullCoreTag,
  mergeTag,
  explicitOnly(boolCoreTag),
  explicitOnly(intCoreTag),
  explicitOnly(floatCoreTag),
);

const PLACEHOLDER = /\$\{([^}:\s]+)(?::-([^}]*))?\}/g;

export type Env = Readonly<Record<string, string | undefined>>;

/** Thrown for text that is not YAML; the loader reports it alone, since nothing else can be read. */
export class YamlSyntaxError extends Error {}

/**
 * Parses `text` (named `source` in messages). Returns null for an empty document. The message of
 * a syntax error carries the reason and position only: js-yaml's own message quotes the
 * surrounding lines, which can hold a password.
 */
export function parseYaml(
  text: string,
  source: string,
  env: Env,
  problems: Problems,
): RawMap | null {
  let documents: unknown[];
  try {
    // loadAll, since load refuses a file that is empty or holds only comments: that is no settings.
    documents = loadAll(text, { schema: SCHEMA, filename: source });
  } catch (error: unknown) {
    if (error instanceof YAMLException) {
      const at =
        error.mark === undefined
          ? ''
          : ` (line ${error.mark.line + 1}, column ${error.mark.column + 1})`;
      throw new YamlSyntaxError(`${source}: not valid YAML: ${error.reason}${at}`);
    }
    throw error;
  }
  if (documents.length > 1) {
    throw new YamlSyntaxError(
      `${source}: not valid YAML: the file holds ${documents.length} documents (separated by ---); QueueBox reads one`,
    );
  }
  const document = documents[0];
  if (document === null || document === undefined) return null;
  if (!isPlainObject(document)) {
    throw new YamlSyntaxError(
      `${source}: the file must hold a map of sections such as database and outbox`,
    );
  }
  const node = toRawNode(document, [], env, problems);
  return node.kind === 'map' ? node : null;
}

function toRawNode(value: unknown, path: Path, env: Env, problems: Problems): RawNode {
  if (value === null || value === undefined) return { kind: 'null' };
  if (typeof value === 'string') return resolvePlaceholders(value, path, env, problems);
  if (typeof value === 'number' || typeof value === 'boolean') return { kind: 'scalar', value };
  if (Array.isArray(value)) {
    return {
      kind: 'list',
      items: value.map((item, i) => toRawNode(item, [...path, i], env, problems)),
    };
  }
  if (isPlainObject(value)) {
    const entries: RawEntry[] = Object.entries(value).map(([written, child]) => ({
      written,
      node: toRawNode(child, [...path, written], env, problems),
    }));
    return { kind: 'map', entries };
  }
  // Unreachable with this schema (it builds no dates or binaries); such a value would read as unset.
  return { kind: 'null' };
}

function resolvePlaceholders(text: string, path: Path, env: Env, problems: Problems): RawNode {
  const missing: string[] = [];
  const value = text.replace(PLACEHOLDER, (match, name: string, fallback: string | undefined) => {
    const set = env[name];
    if (set !== undefined) return set;
    if (fallback !== undefined) return fallback;
    missing.push(name);
    return match;
  });
  if (missing.length === 0) return { kind: 'scalar', value };
  for (const name of missing) {
    problems.add(
      path,
      `the placeholder \${${name}} names an environment variable that is not set; set ${name}, or give a fallback as \${${name}:-value}`,
    );
  }
  // The value is unusable; later rules see the key as unset and stay quiet (Problems.has).
  return { kind: 'null' };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/*
 * Turns the `QUEUEBOX_*` variables into a raw tree (spec §13). A segment made only of digits is a
 * list index; the indexes of one list are sorted and compacted, so `QUEUEBOX_ROUTES_3_...` alone
 * is element 0. Map keys from variables are lower case.
 */
type Draft =
  | { readonly kind: 'map'; readonly children: Map<string, Draft> }
  | { readonly kind: 'leaf'; readonly value: string; readonly name: string };

export interface EnvSource {
  /** Null when no configuration variable is set. */
  readonly tree: RawMap | null;
  /** The configuration variables read, sorted. */
  readonly names: readonly string[];
}

/**
 * Reads the configuration variables. `binds` says whether a path names a setting: a Kubernetes
 * service-link name is ignored only when it binds none, so `QUEUEBOX_OUTBOX_CAPTURE_CONNECTION_PORT`
 * still sets the capture port.
 */
export function readEnvSource(
  env: Env,
  binds: (segments: readonly string[]) => boolean,
  problems: Problems,
): EnvSource {
  const root: Draft = { kind: 'map', children: new Map() };
  const names: string[] = [];
  for (const name of Object.keys(env).sort()) {
    const value = env[name];
    if (value === undefined || !name.startsWith(ENV_PREFIX) || name === CONFIG_FILE_VARIABLE)
      continue;
    const segments = envNameToSegments(name);
    if (isServiceLinkName(name) && !binds(segments)) continue;
    names.push(name);
    insert(root, segments, value, name, problems);
  }
  if (names.length === 0) return { tree: null, names };
  return { tree: toMap(root), names };
}

function insert(
  root: Draft,
  segments: readonly string[],
  value: string,
  name: string,
  problems: Problems,
): void {
  let node = root;
  for (const [i, segment] of segments.entries()) {
    if (node.kind !== 'map') return;
    const last = i === segments.length - 1;
    const child = node.children.get(segment);
    if (child === undefined) {
      const created: Draft = last
        ? { kind: 'leaf', value, name }
        : { kind: 'map', children: new Map() };
      node.children.set(segment, created);
      node = created;
    } else if (last || child.kind === 'leaf') {
      const other = firstName(child);
      problems.addLine(
        last && child.kind === 'leaf'
          ? `${name}: sets the same setting as ${other}; remove one of them`
          : `${name}: conflicts with ${other}; one sets a value where the other sets keys below it, so remove one of them`,
      );
      return;
    } else {
      node = child;
    }
  }
}

function firstName(draft: Draft): string {
  if (draft.kind === 'leaf') return draft.name;
  const names = [...draft.children.values()].map(firstName).sort();
  return names[0] ?? '';
}

function toNode(draft: Draft): RawNode {
  if (draft.kind === 'leaf') return { kind: 'scalar', value: draft.value, env: draft.name };
  const keys = [...draft.children.keys()];
  if (keys.length > 0 && keys.every((k) => /^\d+$/.test(k))) {
    const items = keys
      .sort((a, b) => Number(a) - Number(b))
      .map((k) => toNode(draft.children.get(k) ?? { kind: 'map', children: new Map() }));
    return { kind: 'list', items };
  }
  return toMap(draft);
}

function toMap(draft: Draft): RawMap {
  if (draft.kind === 'leaf') return { kind: 'map', entries: [] };
  const entries: RawEntry[] = [...draft.children].map(([written, child]) => ({
    written,
    node: toNode(child),
  }));
  return { kind: 'map', entries };
}
