/**
 * Scalar fields. YAML scalars and variables are both text here (`plain-tree.ts`), so one parser
 * serves both: whole numbers, `true`/`false`, exact-case enumerations, secrets (`file:<path>`
 * read once), text lists and text maps. Parsing failures are schema problems, reported before
 * any rule (`issues.ts` orders them).
 */
import { Secret } from '@queuebox/core';
import * as v from 'valibot';
import { isMap, scalarMessage, REQUIRED } from './kit.js';
import { readSecretFile } from './secret-files.js';

const INT_MAX = 2_147_483_647;

/** Text as written; a section or a list is refused, an absent value is required. */
export const text = v.string(scalarMessage);

/** Required text, or text with a default. */
export const str = (def?: string) => (def === undefined ? text : v.optional(text, def));
export const optStr = () => v.optional(v.nullable(text), null);

export interface IntOptions {
  readonly min?: number;
  readonly max?: number;
  /** A `…Ms` key: whole milliseconds, never negative. */
  readonly ms?: boolean;
  /** A long key (`inbox.maxBodyBytes`): up to the largest safe integer rather than 2^31−1. */
  readonly long?: boolean;
}

const below = (min: number): string =>
  min === 1
    ? 'must be greater than 0'
    : min === 0
      ? 'must not be negative'
      : `must be at least ${min}`;

/** A whole number (an int key, or with `ms` a `…Ms` key). */
export function integer(options: IntOptions = {}) {
  const min = options.min ?? (options.ms === true ? 0 : -INT_MAX - 1);
  const max =
    options.max ??
    (options.ms === true || options.long === true ? Number.MAX_SAFE_INTEGER : INT_MAX);
  const between = options.max === undefined ? undefined : `must be between ${min} and ${max}`;
  const unit = options.ms === true ? ' of milliseconds' : '';
  return v.pipe(
    text,
    v.rawTransform(({ dataset, addIssue, NEVER }) => {
      const trimmed = dataset.value.trim();
      const value = /^[+-]?\d+$/.test(trimmed) ? Number(trimmed) : Number.NaN;
      if (Number.isSafeInteger(value)) return value;
      addIssue({ message: `'${dataset.value}' is not a whole number${unit}` });
      return NEVER;
    }),
    v.minValue(min, between ?? below(min)),
    v.maxValue(max, between ?? `must be at most ${max}`),
    v.metadata({ docType: options.ms === true ? 'ms' : options.long === true ? 'long' : 'int' }),
  );
}

/** A whole number with a default. */
export const int = (def: number, options: IntOptions = {}) =>
  v.optional(integer(options), String(def));
/** `…Ms` with a default; `min` 1 for the keys that must be greater than 0. */
export const ms = (def: number, min = 1) => int(def, { ms: true, min });
export const optInt = (options: IntOptions = {}) => v.optional(v.nullable(integer(options)), null);

export const boolean = v.pipe(
  text,
  v.rawTransform(({ dataset, addIssue, NEVER }) => {
    const lower = dataset.value.trim().toLowerCase();
    if (lower === 'true' || lower === 'false') return lower === 'true';
    addIssue({ message: `'${dataset.value}' is not true or false` });
    return NEVER;
  }),
  v.metadata({ docType: 'bool' }),
);
export const bool = (def: boolean) => v.optional(boolean, String(def));

/** An enumeration in exact case (spec §12.1: `fail` does not load where `Fail` is meant). */
export function picklist<const V extends readonly [string, ...string[]]>(values: V) {
  return v.pipe(
    text,
    v.picklist(values, (issue) => {
      const written = String(issue.input);
      const caseOnly = values.find((value) => value.toLowerCase() === written.toLowerCase());
      const hint = caseOnly === undefined ? '' : `; the value is case-sensitive, write ${caseOnly}`;
      return `'${written}' is not one of ${values.join(', ')}${hint}`;
    }),
    v.metadata({ docType: 'enum' }),
  );
}
export const oneOf = <const V extends readonly [string, ...string[]]>(values: V, def: V[number]) =>
  v.optional(picklist(values), def);
export const optOneOf = <const V extends readonly [string, ...string[]]>(values: V) =>
  v.optional(v.nullable(picklist(values)), null);

/** `file:<path>` reads the file once; trailing newlines go, and a failure names only the path. */
const secretValue = v.pipe(
  text,
  v.rawTransform(({ dataset, addIssue, NEVER }) => {
    const written = dataset.value;
    if (!written.startsWith('file:')) return new Secret(written);
    const file = written.slice('file:'.length);
    const content = readSecretFile(file);
    if (content !== undefined) return new Secret(content.replace(/[\r\n]+$/, ''));
    addIssue({ message: `cannot read the secret file ${file}` });
    return NEVER;
  }),
  v.metadata({ docType: 'secret' }),
);
export const secret = () => secretValue;
export const optSecret = () => v.optional(v.nullable(secretValue), null);

/**
 * A list of text (`topics`, filter `in`, JSONPath lists). A single value is a list of one;
 * `splitCommas` also splits it on commas (Kafka `topics: a,b`).
 */
export function list(options: { splitCommas?: boolean } = {}) {
  return v.pipe(
    v.custom<string | unknown[]>(
      (value) => typeof value === 'string' || Array.isArray(value),
      (issue) =>
        issue.input === undefined ? REQUIRED : 'must be a value or a list of values, not a section',
    ),
    v.transform((value) =>
      typeof value !== 'string'
        ? value
        : options.splitCommas === true
          ? value.split(',').map((item) => item.trim())
          : [value],
    ),
    v.array(text),
    v.metadata({ docType: 'list' }),
  );
}

const names = v.custom<Record<string, unknown>>(isMap, 'must be a section of names and values');

/** Free names to text (`headers`, `extraParams`): names kept as written. */
export const textMap = <
  K extends v.GenericSchema<string, string>,
  T extends v.GenericSchema<string, string>,
>(
  key: K,
  value: T,
) => v.optional(v.pipe(names, v.record(key, value)), {});
export const strMap = () => textMap(v.string(), text);

/** A value that is null unless written. */
export const opt = <S extends v.GenericSchema>(schema: S) => v.optional(v.nullable(schema), null);
