/**
 * Scalar fields. YAML scalars and variables are both text here, so one parser serves both:
 * whole numbers, `true`/`false`, exact-case enumerations, secrets (`file:<path>` read once), text
 * lists and text maps. A failed value is reported and replaced by a stand-in that never escapes,
 * because a load with any problem throws.
 */
import { Secret } from '@queuebox/core';
import { isEnvExpressible, segmentsToEnvName } from './env-names.js';
import type { Path } from './problems.js';
import type { RawNode } from './raw-node.js';
import { isAbsent, listBinds, scalarBinds, type DecodeContext, type Field } from './schema-kit.js';

export const INT_MAX = 2_147_483_647;
const FAILED = Symbol('failed');
type Parsed<T> = T | typeof FAILED;

/** The text of a scalar node; FAILED (reported) for a section or a list; undefined when absent. */
function textOf(
  node: RawNode | undefined,
  path: Path,
  ctx: DecodeContext,
): Parsed<string> | undefined {
  if (isAbsent(node)) return undefined;
  if (node.kind === 'scalar') return String(node.value);
  ctx.problems.add(
    path,
    `must be a single value, not ${node.kind === 'list' ? 'a list' : 'a section'}`,
  );
  return FAILED;
}

function reportRequired(path: Path, ctx: DecodeContext): void {
  if (ctx.problems.has(path)) return;
  const hint = isEnvExpressible(path)
    ? `; set it in the YAML file or with ${segmentsToEnvName(path)}`
    : '';
  ctx.problems.add(path, `required${hint}`);
}

function scalarField<T>(
  parse: (text: string, path: Path, ctx: DecodeContext) => Parsed<T>,
  absent: (path: Path, ctx: DecodeContext) => T,
): Field<T> {
  return {
    decode: (node, path, ctx) => {
      const text = textOf(node, path, ctx);
      if (text === undefined) return absent(path, ctx);
      const value = text === FAILED ? FAILED : parse(text, path, ctx);
      // The stand-in for a failed value: the load throws before anyone reads it.
      return value === FAILED ? absent(path, ctx) : value;
    },
    binds: scalarBinds,
  };
}

const keep = (text: string): string => text;

/** Required text, or text with a default. */
export function str(options: { def?: string } = {}): Field<string> {
  const { def } = options;
  return scalarField(keep, (path, ctx) => {
    if (def !== undefined) return def;
    reportRequired(path, ctx);
    return '';
  });
}

export function optStr(): Field<string | null> {
  return scalarField<string | null>(keep, () => null);
}

export interface IntOptions {
  readonly def?: number;
  readonly min?: number;
  readonly max?: number;
  /** A `…Ms` key: whole milliseconds, never negative. */
  readonly ms?: boolean;
  /** A long key (`inbox.maxBodyBytes`): up to the largest safe integer rather than 2^31−1. */
  readonly long?: boolean;
}

function rangeText(value: number, min: number, max: number, explicitMax: boolean): string {
  if (explicitMax) return `must be between ${min} and ${max}`;
  if (value > max) return `must be at most ${max}`;
  if (min === 1) return 'must be greater than 0';
  if (min === 0) return 'must not be negative';
  return `must be at least ${min}`;
}

function intParser(options: IntOptions) {
  const min = options.min ?? (options.ms === true ? 0 : -INT_MAX - 1);
  const max =
    options.max ??
    (options.ms === true || options.long === true ? Number.MAX_SAFE_INTEGER : INT_MAX);
  return (text: string, path: Path, ctx: DecodeContext): Parsed<number> => {
    const trimmed = text.trim();
    const value = /^[+-]?\d+$/.test(trimmed) ? Number(trimmed) : Number.NaN;
    if (!Number.isSafeInteger(value)) {
      const unit = options.ms === true ? ' of milliseconds' : '';
      ctx.problems.add(path, `'${text}' is not a whole number${unit}`);
      return FAILED;
    }
    if (value < min || value > max) {
      ctx.problems.add(path, rangeText(value, min, max, options.max !== undefined));
      return FAILED;
    }
    return value;
  };
}

/** A whole number (an int key, or with `ms` a `…Ms` key), required unless it has a default. */
export function int(options: IntOptions = {}): Field<number> {
  return scalarField(intParser(options), (path, ctx) => {
    if (options.def !== undefined) return options.def;
    reportRequired(path, ctx);
    return 0;
  });
}

export function optInt(options: IntOptions = {}): Field<number | null> {
  return scalarField<number | null>(intParser(options), () => null);
}

function parseBool(text: string, path: Path, ctx: DecodeContext): Parsed<boolean> {
  const lower = text.trim().toLowerCase();
  if (lower === 'true') return true;
  if (lower === 'false') return false;
  ctx.problems.add(path, `'${text}' is not true or false`);
  return FAILED;
}

export function bool(def: boolean): Field<boolean> {
  return scalarField(parseBool, () => def);
}

export function optBool(): Field<boolean | null> {
  return scalarField<boolean | null>(parseBool, () => null);
}

function parseOneOf<const V extends string>(values: readonly V[]) {
  return (text: string, path: Path, ctx: DecodeContext): Parsed<V> => {
    const match = values.find((v) => v === text);
    if (match !== undefined) return match;
    const caseOnly = values.find((v) => v.toLowerCase() === text.toLowerCase());
    const hint = caseOnly === undefined ? '' : `; the value is case-sensitive, write ${caseOnly}`;
    ctx.problems.add(path, `'${text}' is not one of ${values.join(', ')}${hint}`);
    return FAILED;
  };
}

/** An enumeration in exact case (spec §12.1: `fail` does not load where `Fail` is meant). */
export function oneOf<const V extends string>(values: readonly V[], def: V): Field<V> {
  return scalarField(parseOneOf(values), () => def);
}

export function optOneOf<const V extends string>(values: readonly V[]): Field<V | null> {
  return scalarField<V | null>(parseOneOf(values), () => null);
}

/** `file:<path>` reads the file once; trailing newlines go, and a failure names only the path. */
function parseSecret(text: string, path: Path, ctx: DecodeContext): Parsed<Secret> {
  if (!text.startsWith('file:')) return new Secret(text);
  const file = text.slice('file:'.length);
  const content = ctx.readSecretFile(file);
  if (content === undefined) {
    ctx.problems.add(path, `cannot read the secret file ${file}`);
    return FAILED;
  }
  return new Secret(content.replace(/[\r\n]+$/, ''));
}

export function secret(): Field<Secret> {
  return scalarField(parseSecret, (path, ctx) => {
    reportRequired(path, ctx);
    return new Secret('');
  });
}

export function optSecret(): Field<Secret | null> {
  return scalarField<Secret | null>(parseSecret, () => null);
}

/**
 * A list of text (`topics`, filter `in`, JSONPath lists). A single value is a list of one;
 * `splitCommas` also splits it on commas (Kafka `topics: a,b`). Null when absent.
 */
export function strList(
  options: { required?: boolean; splitCommas?: boolean } = {},
): Field<string[] | null> {
  return {
    decode: (node, path, ctx) => {
      if (isAbsent(node)) {
        if (options.required === true) reportRequired(path, ctx);
        return null;
      }
      if (node.kind === 'scalar') {
        const text = String(node.value);
        return options.splitCommas === true ? text.split(',').map((t) => t.trim()) : [text];
      }
      if (node.kind === 'map') {
        ctx.problems.add(path, 'must be a value or a list of values, not a section');
        return null;
      }
      return node.items.map((item, i) => {
        const text = textOf(item, [...path, i], ctx);
        return typeof text === 'string' ? text : '';
      });
    },
    binds: listBinds,
  };
}

/** Free names to text (`headers`, `extraParams`): names kept as written. */
export function strMap(): Field<Record<string, string>> {
  return {
    decode: (node, path, ctx) => {
      const result: Record<string, string> = {};
      if (isAbsent(node)) return result;
      if (node.kind !== 'map') {
        ctx.problems.add(path, 'must be a section of names and values');
        return result;
      }
      for (const entry of node.entries) {
        const text = textOf(entry.node, [...path, entry.written], ctx);
        result[entry.written] = typeof text === 'string' ? text : '';
      }
      return result;
    },
    binds: (segments) => segments.length === 1,
  };
}
