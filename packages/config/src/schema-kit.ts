/**
 * A small typed schema language for the configuration tree. Each field decodes its raw node and
 * reports what is wrong; sections and kinds do the strict part of spec §12.1: unknown keys with a
 * near-miss suggestion, a missing or unknown `type`, and keys the selected `type` does not take.
 * The decoded tree keeps YAML names, so every later rule reports the path the operator wrote.
 */
import { envNameToSegments, segmentsToEnvName } from './env-names.js';
import { displayPath, type Path, type Problems } from './problems.js';
import {
  hasFileContent,
  variablesIn,
  type RawEntry,
  type RawNode,
  type RawNull,
} from './raw-node.js';
import { nearest, normalizeKey } from './suggest.js';

export interface DecodeContext {
  readonly problems: Problems;
  /** Reads a `file:` secret once; undefined when the file cannot be read. */
  readonly readSecretFile: (path: string) => string | undefined;
}

export interface Field<T> {
  readonly decode: (node: RawNode | undefined, path: Path, ctx: DecodeContext) => T;
  /** Whether a variable path below this field names a setting (service-link filtering). */
  readonly binds: (segments: readonly string[]) => boolean;
}

export type Fields = { readonly [key: string]: Field<unknown> };
export type Decoded<F extends Fields> = {
  -readonly [K in keyof F]: F[K] extends Field<infer T> ? T : never;
};
export type Kinds = { readonly [kind: string]: Fields };
export type KindOf<K extends Kinds> = {
  [N in keyof K & string]: { type: N } & Decoded<K[N]>;
}[keyof K & string];

export const isAbsent = (node: RawNode | undefined): node is undefined | RawNull =>
  node === undefined || node.kind === 'null';

const isIndex = (segment: string | undefined): boolean =>
  segment !== undefined && /^\d+$/.test(segment);

/** The entries of a section or map node; undefined (reported) when the node is not a map. */
export function entriesOf(
  node: RawNode | undefined,
  path: Path,
  ctx: DecodeContext,
): readonly RawEntry[] | undefined {
  if (isAbsent(node)) return [];
  if (node.kind === 'map') return node.entries;
  ctx.problems.add(
    path,
    `must be a section of keys, not ${node.kind === 'list' ? 'a list' : 'a single value'}`,
    true,
  );
  return undefined;
}

function fieldBinds(fields: Fields, segments: readonly string[]): boolean {
  const [first, ...rest] = segments;
  if (first === undefined) return false;
  const name = Object.keys(fields).find((key) => normalizeKey(key) === normalizeKey(first));
  return name !== undefined && (fields[name]?.binds(rest) ?? false);
}

/**
 * Decodes known keys in schema order after reporting unknown and repeated ones in source order.
 * `unknown` words the problem for a key the fields do not take.
 */
function decodeFields<F extends Fields>(
  fields: F,
  entries: readonly RawEntry[],
  path: Path,
  ctx: DecodeContext,
  unknown: (written: string) => UnknownKey,
  skip?: string,
): Decoded<F> {
  const names = Object.keys(fields);
  const byKey = new Map(names.map((name) => [normalizeKey(name), name]));
  const found = new Map<string, RawEntry>();
  for (const entry of entries) {
    const key = normalizeKey(entry.written);
    if (key === skip) continue;
    const name = byKey.get(key);
    if (name === undefined) {
      reportUnknownKey(ctx, [...path, entry.written], entry.node, unknown(entry.written), names);
      continue;
    }
    const earlier = found.get(name);
    if (earlier !== undefined) {
      ctx.problems.add(
        [...path, entry.written],
        `repeats ${displayPath([...path, earlier.written])}; keep one of them`,
      );
      continue;
    }
    found.set(name, entry);
  }
  const decoded: Record<string, unknown> = {};
  for (const name of names) {
    decoded[name] = fields[name]?.decode(found.get(name)?.node, [...path, name], ctx);
  }
  return decoded as Decoded<F>;
}

export interface UnknownKey {
  /** `unknown key` or `unknown key for type rabbitmq`. */
  readonly problem: string;
  readonly suggestion?: string;
  /** Kinds that take the key, named when no suggestion applies. */
  readonly takers?: readonly string[];
}

function takersText(takers: readonly string[] | undefined): string {
  if (takers === undefined || takers.length === 0) return '';
  if (takers.length === 1) return `; type ${takers[0]} takes it`;
  return `; types ${takers.slice(0, -1).join(', ')} and ${takers[takers.length - 1]} take it`;
}

/**
 * An unknown key written in a file is named by its path; one set by variables is named by each
 * variable, with the suggestion turned into a variable name. A node both wrote gets both.
 */
function reportUnknownKey(
  ctx: DecodeContext,
  path: Path,
  node: RawNode,
  unknown: UnknownKey,
  names: readonly string[],
): void {
  const variables = variablesIn(node);
  const tail =
    unknown.suggestion !== undefined
      ? `; did you mean ${unknown.suggestion}?`
      : takersText(unknown.takers);
  if (hasFileContent(node) || variables.length === 0) {
    ctx.problems.addLine(`${displayPath(path)}: ${unknown.problem}${tail}`, path);
  }
  const depth = path.length - 1;
  for (const variable of variables) {
    const suggested = variableSuggestion(variable, depth, unknown.suggestion, names);
    const envTail =
      suggested !== undefined ? `; did you mean ${suggested}?` : takersText(unknown.takers);
    ctx.problems.addLine(
      `${variable}: ${unknown.problem.replace('unknown key', 'unknown variable')}${envTail}`,
      path,
    );
  }
}

/**
 * The variable the operator probably meant: the suggested key in place of the wrong segment,
 * or, for `QUEUEBOX_OUTBOX_POLL_INTERVAL_MS`, the leaf written without its inner underscores.
 */
function variableSuggestion(
  variable: string,
  depth: number,
  suggestion: string | undefined,
  names: readonly string[],
): string | undefined {
  const segments = envNameToSegments(variable);
  if (suggestion !== undefined) {
    segments[depth] = suggestion;
    return segmentsToEnvName(segments);
  }
  const rest = segments.slice(depth);
  if (rest.length < 2) return undefined;
  const joined = nearest(rest.join(''), names);
  return joined === undefined
    ? undefined
    : segmentsToEnvName([...segments.slice(0, depth), joined]);
}

/** A fixed set of keys (`outbox`, `database.columnMapping.inbox`, ...). Absent → every default. */
export function section<F extends Fields>(fields: F): Field<Decoded<F>> {
  return {
    decode: (node, path, ctx) => {
      const entries = entriesOf(node, path, ctx) ?? [];
      return decodeFields(fields, entries, path, ctx, (written) => ({
        problem: 'unknown key',
        suggestion: nearest(written, Object.keys(fields)),
      }));
    },
    binds: (segments) => fieldBinds(fields, segments),
  };
}

/** A block that is off unless written (`transform`, `filter`, `rateLimit`). */
export function optSection<F extends Fields>(fields: F): Field<Decoded<F> | null> {
  const inner = section(fields);
  return {
    decode: (node, path, ctx) => (isAbsent(node) ? null : inner.decode(node, path, ctx)),
    binds: inner.binds,
  };
}

/**
 * A block whose `type` selects its kind (spec §12.1). Undefined when the kind cannot be chosen;
 * the problem is reported and the block's other keys are not checked against a guess.
 */
export function kinded<K extends Kinds>(
  kinds: K,
  fallback?: keyof K & string,
): Field<KindOf<K> | undefined> {
  const names = Object.keys(kinds).sort();
  const choices = names.join(', ');
  return {
    decode: (node, path, ctx) => {
      const entries = entriesOf(node, path, ctx);
      if (entries === undefined) return undefined;
      const typeEntry = entries.find((e) => normalizeKey(e.written) === 'type');
      const typeNode = typeEntry?.node;
      let kind: string;
      if (isAbsent(typeNode)) {
        if (fallback === undefined) {
          ctx.problems.add(path, `missing type; set one of ${choices}`, true);
          return undefined;
        }
        kind = fallback;
      } else if (typeNode.kind !== 'scalar') {
        ctx.problems.add([...path, 'type'], `type must be one of ${choices}`);
        ctx.problems.block(path);
        return undefined;
      } else {
        kind = String(typeNode.value);
        if (!Object.hasOwn(kinds, kind)) {
          const suggestion = nearest(kind, names);
          const tail =
            suggestion === undefined ? `; set one of ${choices}` : `; did you mean ${suggestion}?`;
          ctx.problems.add([...path, 'type'], `unknown type ${kind}${tail}`);
          ctx.problems.block(path);
          return undefined;
        }
      }
      const fields = kinds[kind] ?? {};
      const decoded = decodeFields(
        fields,
        entries,
        path,
        ctx,
        (written) => {
          const suggestion = nearest(written, Object.keys(fields));
          const key = normalizeKey(written);
          const takers = names.filter((other) =>
            Object.keys(kinds[other] ?? {}).some((field) => normalizeKey(field) === key),
          );
          return { problem: `unknown key for type ${kind}`, suggestion, takers };
        },
        'type',
      );
      return { type: kind, ...decoded } as KindOf<K>;
    },
    binds: (segments) =>
      (segments.length === 1 && normalizeKey(segments[0] ?? '') === 'type') ||
      names.some((name) => fieldBinds(kinds[name] ?? {}, segments)),
  };
}

/** A kinded block that is off unless written (`auth`). */
export function optKinded<K extends Kinds>(kinds: K): Field<KindOf<K> | null | undefined> {
  const inner = kinded(kinds);
  return {
    decode: (node, path, ctx) => (isAbsent(node) ? null : inner.decode(node, path, ctx)),
    binds: inner.binds,
  };
}

/** Names the operator chooses (`destinations`, `sources`): keys are free, values are checked. */
export function mapOf<T>(value: Field<T | undefined>): Field<Record<string, T>> {
  return {
    decode: (node, path, ctx) => {
      const result: Record<string, T> = {};
      for (const entry of entriesOf(node, path, ctx) ?? []) {
        const decoded = value.decode(entry.node, [...path, entry.written], ctx);
        if (decoded !== undefined) result[entry.written] = decoded;
      }
      return result;
    },
    binds: (segments) => segments.length > 0 && value.binds(segments.slice(1)),
  };
}

/** An ordered list of blocks (`routes`, filter rules). */
export function listOf<T>(item: Field<T>): Field<T[]> {
  return {
    decode: (node, path, ctx) => {
      if (isAbsent(node)) return [];
      if (node.kind !== 'list') {
        ctx.problems.add(path, 'must be a list', true);
        return [];
      }
      return node.items.map((child, i) => item.decode(child, [...path, i], ctx));
    },
    binds: (segments) => isIndex(segments[0]) && item.binds(segments.slice(1)),
  };
}

export const scalarBinds = (segments: readonly string[]): boolean => segments.length === 0;
export const listBinds = (segments: readonly string[]): boolean =>
  segments.length === 0 || (segments.length === 1 && isIndex(segments[0]));
