/**
 * The valibot building blocks of the configuration schema, and the reader of their shape. YAML
 * keys match ignoring case, `-` and `_`, which valibot's objects do not do, so every section first
 * rewrites its input (`canonical`): known keys under their schema names in schema order, unknown
 * and repeated keys first under the names the operator wrote. valibot then reports each unknown
 * key through the section's `never` rest, and `issues.ts` words it (suggestion, the types that
 * take it, the variables that set it) from what `sectionInfo` remembers of the rewritten object.
 */
import * as v from 'valibot';
import { nearest, normalizeKey } from '../suggest.js';

/**
 * valibot for the other schema and rule modules: Node 20 resolves a package name anew for every
 * module that imports it, at about three times the cost of importing a sibling, on every start.
 */
export { v };

/** What the issue formatter needs to know about a rewritten section. */
export interface SectionInfo {
  /** The keys this section takes (without `type` for a kinded block). */
  readonly names: readonly string[];
  /** Written key → the written key it repeats. */
  readonly repeats: ReadonlyMap<string, string>;
  /** The selected kind of a kinded block, and every kind with its keys. */
  readonly kind?: string;
  readonly kinds?: Readonly<Record<string, readonly string[]>>;
}

const infos = new WeakMap<object, SectionInfo>();
export const sectionInfo = (input: unknown): SectionInfo | undefined =>
  typeof input === 'object' && input !== null ? infos.get(input) : undefined;

export type Plain = Record<string, unknown>;
export const isMap = (value: unknown): value is Plain =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Stands for "required; set it in ... or with QUEUEBOX_..."; the formatter knows the full path. */
export const REQUIRED = '\u0000required';
/** Issues reported at the block rather than at its `type` key ("missing type; ..."). */
export const atParent = new WeakSet<object>();

const shapeOf = (value: unknown): string =>
  Array.isArray(value) ? 'a list' : isMap(value) ? 'a section' : 'a single value';

/** The message of a scalar that is absent (required) or not a single value. */
export const scalarMessage = (issue: v.BaseIssue<unknown>): string =>
  issue.input === undefined ? REQUIRED : `must be a single value, not ${shapeOf(issue.input)}`;

const sectionShape = v.custom<Plain>(
  isMap,
  (issue) => `must be a section of keys, not ${shapeOf(issue.input)}`,
);

/** The keys of a section, looked up as YAML compares them; built once per schema. */
interface Keys {
  readonly names: readonly string[];
  readonly byKey: ReadonlyMap<string, string>;
  readonly info: Omit<SectionInfo, 'repeats'>;
}

const keysOf = (names: readonly string[], extra: Partial<SectionInfo> = {}): Keys => ({
  names,
  byKey: new Map(names.map((name) => [normalizeKey(name), name])),
  info: { names: names.filter((name) => name !== 'type'), ...extra },
});

function canonical(input: Plain, keys: Keys): Plain {
  const known = new Map<string, string>();
  const repeats = new Map<string, string>();
  const output: Plain = Object.create(null) as Plain;
  for (const written of Object.keys(input)) {
    const name = keys.byKey.get(normalizeKey(written));
    const earlier = name === undefined ? undefined : known.get(name);
    if (name === undefined || earlier !== undefined) {
      output[written] = input[written];
      if (earlier !== undefined) repeats.set(written, earlier);
    } else known.set(name, written);
  }
  for (const name of keys.names) {
    const written = known.get(name);
    output[name] = written === undefined ? undefined : input[written];
  }
  infos.set(output, { ...keys.info, repeats });
  return output;
}

type Entries = v.ObjectEntries;
export type SectionOutput<E extends Entries> = v.InferOutput<v.ObjectSchema<E, undefined>>;

/** A fixed set of keys: unknown keys are refused, absent keys take their defaults. */
export function section<const E extends Entries>(entries: E) {
  const keys = keysOf(Object.keys(entries));
  return v.pipe(
    sectionShape,
    v.transform((input) => canonical(input, keys)),
    v.objectWithRest(entries, v.never()),
  ) as unknown as v.GenericSchema<unknown, SectionOutput<E>>;
}

/** A section that is its defaults when absent. */
export const defaulted = <const E extends Entries>(entries: E) => v.optional(section(entries), {});

/** A block that is off (null) unless written: `transform`, `filter`, `rateLimit`. */
export const optSection = <const E extends Entries>(entries: E) =>
  v.optional(v.nullable(section(entries)), null);

type Kinds = Readonly<Record<string, Entries>>;
type KindOutput<K extends Kinds> = {
  [N in keyof K & string]: { type: N } & SectionOutput<K[N]>;
}[keyof K & string];

/**
 * A block whose `type` selects its keys (spec §12.1). A key of another kind is refused as
 * "unknown key for type X; type Y takes it"; `fallback` is the kind of a block without `type`.
 */
export function kinded<const K extends Kinds>(kinds: K, fallback?: keyof K & string) {
  const names = Object.keys(kinds).sort();
  const choices = names.join(', ');
  const kindKeys = Object.fromEntries(names.map((n) => [n, Object.keys(kinds[n] ?? {})]));
  const keys = new Map(
    names.map((n) => [n, keysOf(['type', ...(kindKeys[n] ?? [])], { kind: n, kinds: kindKeys })]),
  );
  const untyped = keysOf(['type'], { kinds: kindKeys });
  const options = names.map((name) => {
    const type = name === fallback ? v.optional(v.literal(name), name) : v.literal(name);
    return v.objectWithRest({ type, ...kinds[name] }, v.never());
  });
  return v.pipe(
    sectionShape,
    v.transform((input) => {
      const typeKey = Object.keys(input).find((key) => normalizeKey(key) === 'type');
      const type = typeKey === undefined ? fallback : input[typeKey];
      return canonical(input, (typeof type === 'string' && keys.get(type)) || untyped);
    }),
    v.variant('type', options as never, (issue) => {
      const type = issue.input;
      if (type === undefined) {
        atParent.add(issue);
        return `missing type; set one of ${choices}`;
      }
      if (typeof type !== 'string') return `type must be one of ${choices}`;
      const suggestion = nearest(type, names);
      return `unknown type ${type}${suggestion === undefined ? `; set one of ${choices}` : `; did you mean ${suggestion}?`}`;
    }),
  ) as unknown as v.GenericSchema<unknown, KindOutput<K>>;
}

/** A kinded block that is off (null) unless written: `auth`. */
export const optKinded = <const K extends Kinds>(kinds: K) =>
  v.optional(v.nullable(kinded(kinds)), null);

/** Names the operator chooses (`destinations`, `sources`): keys are free, values are checked. */
export const mapOf = <T extends v.GenericSchema>(
  value: T,
  key: v.GenericSchema<string, string> = v.string(),
) => v.optional(v.pipe(sectionShape, v.record(key, value)), {});

/** An ordered list of blocks (`routes`, filter rules). */
export const listOf = <T extends v.GenericSchema>(item: T) =>
  v.optional(v.array(item, 'must be a list'), []);

/** A schema as its shape reader sees it: what a section, a kinded block, a map or a list holds. */
export interface Node {
  readonly kind: string;
  readonly type: string;
  readonly wrapped?: Node;
  readonly default?: unknown;
  readonly pipe?: readonly Node[];
  readonly entries?: Readonly<Record<string, Node>>;
  readonly options?: readonly Node[];
  readonly value?: Node;
  readonly item?: Node;
  readonly metadata?: Readonly<Record<string, unknown>>;
}

export const asNode = (schema: v.GenericSchema): Node => schema;

/** The schema that decides the structure: inside optional, nullable and pipes. */
export function structure(node: Node): Node {
  if (node.wrapped !== undefined) return structure(node.wrapped);
  const inner = node.pipe?.filter((item) => item.kind === 'schema').at(-1);
  return inner === undefined || inner === node ? node : structure(inner);
}

/**
 * Whether a variable path (lower-case segments) names a setting of `schema`: the variable reader
 * tells a Kubernetes service-link name from a setting by it.
 */
export function binds(schema: Node, segments: readonly string[]): boolean {
  const node = structure(schema);
  const [first, ...rest] = segments;
  if (node.entries !== undefined) {
    const name = first === undefined ? undefined : normalizeKey(first);
    const key = Object.keys(node.entries).find((k) => normalizeKey(k) === name);
    return key !== undefined && binds(node.entries[key] as Node, rest);
  }
  if (node.options !== undefined) return node.options.some((option) => binds(option, segments));
  if (node.type === 'record' && node.value !== undefined)
    return first !== undefined && binds(node.value, rest);
  if (node.type === 'array' && node.item !== undefined)
    return first === undefined
      ? binds(node.item, [])
      : /^\d+$/.test(first) && binds(node.item, rest);
  return first === undefined;
}
