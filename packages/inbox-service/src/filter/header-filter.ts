/**
 * The header filter of a source (spec §7.3). It runs before key extraction and the transform, so
 * a dropped message costs no expression evaluation and leaves no row of any kind.
 */
import {
  QueueBoxError,
  compileTopicPattern,
  toError,
  type HeaderFilterConfig,
  type HeaderFilterRule,
} from '@queuebox/core';

/** Reads a received header by its lower-cased name; the last value when the name repeats. */
export type LowerCaseHeaderLookup = (lowerCaseName: string) => string | undefined;

/**
 * `rule` names the first rule that failed, as `require[0] (X-Env equals)`, for the DEBUG line.
 * It never holds the header's value, which can be anything a sender chose.
 */
export type FilterVerdict =
  { readonly pass: true } | { readonly pass: false; readonly rule: string };

export interface HeaderFilter {
  evaluate(headers: LowerCaseHeaderLookup): FilterVerdict;
}

interface CompiledRule {
  readonly description: string;
  matches(headers: LowerCaseHeaderLookup): boolean;
}

const PASS: FilterVerdict = { pass: true };

/** A filter that passes every message, for a source without `filter`. */
export const PASS_ALL: HeaderFilter = { evaluate: () => PASS };

/**
 * Compiles the rules once at start.
 * @param keyPath the configuration key of the block, e.g. `sources.stripe.filter`; a `matches`
 *   glob that does not compile stops the start naming `<keyPath>.require[0].matches`.
 */
export function compileHeaderFilter(
  config: HeaderFilterConfig | null,
  keyPath: string,
): HeaderFilter {
  if (config === null || (config.require.length === 0 && config.exclude.length === 0))
    return PASS_ALL;
  const require = config.require.map((rule, i) => compileRule(rule, `require[${i}]`, keyPath));
  const exclude = config.exclude.map((rule, i) => compileRule(rule, `exclude[${i}]`, keyPath));
  return {
    evaluate(headers) {
      for (const rule of require)
        if (!rule.matches(headers)) return { pass: false, rule: rule.description };
      for (const rule of exclude)
        if (rule.matches(headers)) return { pass: false, rule: rule.description };
      return PASS;
    },
  };
}

function compileRule(rule: HeaderFilterRule, position: string, keyPath: string): CompiledRule {
  const name = rule.header.trim().toLowerCase();
  const label = `${position} (${rule.header}`;
  const test = rule.test;
  // A rule with a value test does not match an absent header: a `require` then blocks and an
  // `exclude` lets the message pass. Values compare exactly, case-sensitively.
  switch (test.kind) {
    case 'equals':
      return {
        description: `${label} equals)`,
        matches: (headers) => headers(name) === test.value,
      };
    case 'in': {
      const values = new Set(test.values);
      return {
        description: `${label} in)`,
        matches: (headers) => {
          const value = headers(name);
          return value !== undefined && values.has(value);
        },
      };
    }
    case 'matches': {
      let pattern: RegExp;
      try {
        pattern = compileTopicPattern(test.glob);
      } catch (error: unknown) {
        throw new QueueBoxError(
          'config_invalid',
          `${keyPath}.${position}.matches: ${toError(error).message}`,
          {
            cause: error,
          },
        );
      }
      return {
        description: `${label} matches ${test.glob})`,
        matches: (headers) => {
          const value = headers(name);
          return value !== undefined && pattern.test(value);
        },
      };
    }
    case 'exists':
      return {
        description: `${label} exists)`,
        matches: (headers) => headers(name) !== undefined,
      };
  }
}
