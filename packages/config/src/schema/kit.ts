/**
 * The valibot building blocks of the configuration schema. YAML keys match ignoring case, `-`
 * and `_`, which valibot's objects do not do, so every section first rewrites its input
 * (`canonical`): known keys under their schema names in schema order, unknown and repeated keys
 * first under the names the operator wrote. valibot then reports each unknown key through the
 * section's `never` rest, and `issues.ts` words it (suggestion, the types that take it, the
 * variables that set it) from what `sectionInfo` remembers of the rewritten object.
 */
import * as v from 'valibot';
import { nearest, normalizeKey } from '../suggest.js';

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

const shapeOf = (value: unknown): string => (Array.isArray(value) ? 'a list' : 'a single value');

/** The message of a scalar that is absent (required) or not a single value. */
export const scalarMessage = (issue: v.BaseIssue<unknown>): string =>
  issue.input === undefined
    ? REQUIRED
    : `must be a single value, not ${Array.isArray(issue.input) ? 'a list' : 'a section'}`;

const sectionShape = v.custom<Plain>(
  isMap,
  (issue) => `must be a section of keys, not ${shapeOf(issue.input)}`,
);

function canonical(
  input: Plain,
  names: readonly string[],
  extra: Partial<SectionInfo> = {},
): Plain {
  const byKey = new Map(names.map((name) => [normalizeKey(name), name]));
  const known = new Map<string, string>();
  const repeats = new Map<string, string>();
  const output: Plain = Object.create(null) as Plain;
  for (const written of Object.keys(input)) {
    const name = byKey.get(normalizeKey(written));
    const earlier = name === undefined ? undefined : known.get(name);
    if (name === undefined || earlier !== undefined) {
      output[written] = input[written];
      if (earlier !== undefined) repeats.set(written, earlier);
    } else known.set(name, written);
  }
  for (const name of names) {
    const written = known.get(name);
    output[name] = written === undefined ? undefined : input[written];
  }
  infos.set(output, { names: names.filter((n) => n !== 'type'), repeats, ...extra });
  return output;
}

type Entries = v.ObjectEntries;
export type SectionOutput<E extends Entries> = v.InferOutput<v.ObjectSchema<E, undefined>>;

/** A fixed set of keys: unknown keys are refused, absent keys take their defaults. */
export function section<const E extends Entries>(entries: E) {
  const names = Object.keys(entries);
  return v.pipe(
    sectionShape,
    v.transform((input) => canonical(input, names)),
    v.objectWithRest(entries, v.never()),
  ) as unknown as v.GenericSchema<unknown, SectionOutput<E>>;
}

/** A section that is its defaults when absent. */
export function defaulted<const E extends Entries>(entries: E) {
  return v.optional(section(entries), {});
}

/** A block that is off (null) unless written: `transform`, `filter`, `rateLimit`. */
export function optSection<const E extends Entries>(entries: E) {
  return v.optional(v.nullable(section(entries)), null);
}

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
  const keysOf = Object.fromEntries(names.map((n) => [n, Object.keys(kinds[n] ?? {})]));
  const options = names.map((name) => {
    const type = name === fallback ? v.optional(v.literal(name), name) : v.literal(name);
    return v.objectWithRest({ type, ...kinds[name] }, v.never());
  });
  return v.pipe(
    sectionShape,
    v.transform((input) => {
      const typeKey = Object.keys(input).find((key) => normalizeKey(key) === 'type');
      const type = typeKey === undefined ? fallback : input[typeKey];
      const kind = typeof type === 'string' && Object.hasOwn(kinds, type) ? type : undefined;
      const own = kind === undefined ? [] : (keysOf[kind] ?? []);
      return canonical(input, ['type', ...own], { kind, kinds: keysOf });
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
export function optKinded<const K extends Kinds>(kinds: K) {
  return v.optional(v.nullable(kinded(kinds)), null);
}

/** Names the operator chooses (`destinations`, `sources`): keys are free, values are checked. */
export function mapOf<T extends v.GenericSchema>(
  value: T,
  key: v.GenericSchema<string, string> = v.string(),
) {
  return v.optional(v.pipe(sectionShape, v.record(key, value)), {});
}

/** An ordered list of blocks (`routes`, filter rules). */
export function listOf<T extends v.GenericSchema>(item: T) {
  return v.optional(v.array(item, 'must be a list'), []);
}
