/**
 * What a rule across keys sees of the parse: the tree as far as it parsed, and the problems so
 * far. A value with a problem (or below a block that could not be read) is not what its type
 * says, so a rule asks `has` before it reads one, as the reference's rules stay quiet on a
 * broken value instead of piling a second line onto the first.
 */
import type * as v from 'valibot';
import type { Path } from '../problems.js';
import { normalizeKey } from '../suggest.js';
import { atParent } from '../schema/kit.js';

export interface Rules {
  /** Reports a problem at `path`. */
  add(path: Path, message: string): void;
  /** A problem at or below `path`, or a block above it that could not be read. */
  has(path: Path): boolean;
  /** A block above or at `path` that could not be read: nothing below it is known. */
  blocked(path: Path): boolean;
}

const comparable = (path: readonly unknown[]): string[] => path.map((s) => normalizeKey(String(s)));
const isPrefix = (prefix: readonly string[], path: readonly string[]): boolean =>
  prefix.length <= path.length && prefix.every((segment, i) => segment === path[i]);

export function rulesOver(
  issues: () => readonly v.BaseIssue<unknown>[],
  addIssue: (info: { message: string; path: [v.IssuePathItem, ...v.IssuePathItem[]] }) => void,
): Rules {
  const pathOf = (issue: v.BaseIssue<unknown>): string[] => {
    const keys = (issue.path ?? []).map((item) => item.key);
    return comparable(atParent.has(issue) ? keys.slice(0, -1) : keys);
  };
  const blocked = (path: Path): boolean => {
    const at = comparable(path);
    return issues().some((issue) => issue.kind === 'schema' && isPrefix(pathOf(issue), at));
  };
  return {
    add: (path, message) => {
      const items = path.map((key): v.IssuePathItem => ({
        type: 'unknown',
        origin: 'value',
        input: undefined,
        key,
        value: undefined,
      }));
      const [first, ...rest] = items;
      if (first !== undefined) addIssue({ message, path: [first, ...rest] });
    },
    has: (path) => {
      const at = comparable(path);
      return issues().some((issue) => isPrefix(at, pathOf(issue))) || blocked(path);
    },
    blocked,
  };
}

/** Reports blank text, unless the key already has a problem (a missing required key, say). */
export function requireText(rules: Rules, path: Path, value: unknown): void {
  if (typeof value === 'string' && value.trim() === '' && !rules.has(path))
    rules.add(path, 'must not be blank');
}
