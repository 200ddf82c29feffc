/**
 * Reads one YAML document into the raw tree. Every scalar stays text (failsafe schema plus
 * `null` and merge keys): the schema decides what a value means, exactly as for variables, so
 * `password: 0123` keeps its leading zero and `"8080"` and `8080` both read as a port.
 * `${NAME}` and `${NAME:-fallback}` placeholders are resolved here from the environment.
 */
import * as yaml from 'js-yaml';
import type { Path, Problems } from './problems.js';
import type { RawEntry, RawMap, RawNode } from './raw-node.js';

// js-yaml exports its built-in types at run time; @types/js-yaml does not declare them.
const builtin = (
  yaml as unknown as { types: Record<'null' | 'merge' | 'bool' | 'int' | 'float', yaml.Type> }
).types;

const SCHEMA = yaml.FAILSAFE_SCHEMA.extend({
  implicit: [builtin.null, builtin.merge],
  explicit: [builtin.bool, builtin.int, builtin.float],
});

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
  let document: unknown;
  try {
    document = yaml.load(text, { schema: SCHEMA, filename: source });
  } catch (error: unknown) {
    if (error instanceof yaml.YAMLException) {
      const { line, column } = error.mark;
      throw new YamlSyntaxError(
        `${source}: not valid YAML: ${error.reason} (line ${line + 1}, column ${column + 1})`,
      );
    }
    throw error;
  }
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
