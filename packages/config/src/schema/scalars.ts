/**
 * Scalar fields. YAML scalars and variables are both text here (`issues.ts`), so one parser
 * serves both: whole numbers, `true`/`false`, exact-case enumerations, secrets (`file:<path>`
 * read once), text lists and text maps. Parsing failures are schema problems, reported before
 * any rule (`issues.ts` orders them).
 */
import { Secret } from '@queuebox/core';
import { v, isMap, REQUIRED, scalarMessage } from './kit.js';

const INT_MAX = 2_147_483_647;

/** A value that is null unless written. */
export const opt = <S extends v.GenericSchema>(schema: S) => v.optional(v.nullable(schema), null);

/** Text as written; a section or a list is refused, an absent value is required. */
export const text = v.string(scalarMessage);
export const optText = opt(text);
/** Required text, or text with a default. */
export const str = (def?: string) => (def === undefined ? text : v.optional(text, def));

/** Why a text is not the value its key takes. */
class Problem {
  constructor(readonly message: string) {}
}

/** Text turned into a value by `parse`, which returns the value or its Problem. */
const parsed = <T>(docType: string, parse: (text: string) => T | Problem) =>
  v.pipe(
    text,
    v.rawTransform<string, T>(({ dataset, addIssue, NEVER }) => {
      const value = parse(dataset.value);
      if (!(value instanceof Problem)) return value;
      addIssue({ message: value.message });
      return NEVER;
    }),
    v.metadata({ docType }),
  );

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
export function integer({ min: least, max: most, ms = false, long = false }: IntOptions = {}) {
  const min = least ?? (ms ? 0 : -INT_MAX - 1);
  const max = most ?? (ms || long ? Number.MAX_SAFE_INTEGER : INT_MAX);
  const between = most === undefined ? undefined : `must be between ${min} and ${max}`;
  return parsed(ms ? 'ms' : long ? 'long' : 'int', (written) => {
    const value = /^[+-]?\d+$/.test(written.trim()) ? Number(written.trim()) : Number.NaN;
    if (!Number.isSafeInteger(value))
      return new Problem(`'${written}' is not a whole number${ms ? ' of milliseconds' : ''}`);
    if (value < min) return new Problem(between ?? below(min));
    return value > max ? new Problem(between ?? `must be at most ${max}`) : value;
  });
}

/** A positive number, fractions allowed (`rateLimit.perSecond: 0.5`). */
export const positiveNumber = parsed('number', (written) => {
  const trimmed = written.trim();
  const value = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(trimmed) ? Number(trimmed) : NaN;
  if (!Number.isFinite(value)) return new Problem(`'${written}' is not a number`);
  return value > 0 ? value : new Problem('must be greater than 0');
});

/** A whole number with a default. */
export const int = (def: number, options: IntOptions = {}) =>
  v.optional(integer(options), String(def));
/** `…Ms` with a default; `min` 1 for the keys that must be greater than 0. */
export const ms = (def: number, min = 1) => int(def, { ms: true, min });
export const optInt = (options: IntOptions = {}) => opt(integer(options));

export const boolean = parsed('bool', (written) => {
  const lower = written.trim().toLowerCase();
  if (lower === 'true' || lower === 'false') return lower === 'true';
  return new Problem(`'${written}' is not true or false`);
});
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
  opt(picklist(values));

/**
 * The reader of `file:` secrets for the load in progress. valibot passes no context of ours to
 * a schema, and the schema is built once per process (building it per load would cost the start),
 * so the loader lends its reader here for the one synchronous parse.
 */
let readSecretFile: (path: string) => string | undefined = () => undefined;

export function withSecretReader<T>(reader: (path: string) => string | undefined, run: () => T): T {
  const previous = readSecretFile;
  readSecretFile = reader;
  try {
    return run();
  } finally {
    readSecretFile = previous;
  }
}

/** `file:<path>` reads the file once; trailing newlines go, and a failure names only the path. */
export const secret = parsed('secret', (written) => {
  if (!written.startsWith('file:')) return new Secret(written);
  const file = written.slice('file:'.length);
  const content = readSecretFile(file);
  if (content === undefined) return new Problem(`cannot read the secret file ${file}`);
  return new Secret(content.replace(/[\r\n]+$/, ''));
});
export const optSecret = opt(secret);

/**
 * A list of text (`topics`, filter `in`, JSONPath lists). A single value is a list of one;
 * `splitCommas` also splits it on commas (`topics: a,b`).
 */
export const list = (splitCommas = false) =>
  v.pipe(
    v.custom<string | unknown[]>(
      (value) => typeof value === 'string' || Array.isArray(value),
      (issue) =>
        issue.input === undefined ? REQUIRED : 'must be a value or a list of values, not a section',
    ),
    v.transform((value) =>
      typeof value !== 'string'
        ? value
        : splitCommas
          ? value.split(',').map((item) => item.trim())
          : [value],
    ),
    v.array(text),
    v.metadata({ docType: 'list' }),
  );

const names = v.custom<Plain>(isMap, 'must be a section of names and values');
type Plain = Record<string, unknown>;

/** Free names to text (`headers`, `extraParams`): names kept as written. */
export const textMap = (
  key: v.GenericSchema<string, string> = v.string(),
  value: v.GenericSchema<string, string> = text,
) => v.optional(v.pipe(names, v.record(key, value)), {});
