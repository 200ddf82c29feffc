/**
 * Field rules: checks of one value that need no other key. They run after the value parsed and
 * are listed after the parsing problems (`issues.ts`), as the reference lists its rules.
 */
import {
  SQL_IDENTIFIER_MAX_LENGTH,
  isFramingHeader,
  isHeaderToken,
  isOwnedHeader,
  JsonPathError,
  parseJsonPath,
  type Secret,
} from '@queuebox/core';
import { v } from './kit.js';
import {
  DURATION_HINT,
  MAX_INITIAL_DELAY_SECONDS,
  SQL_IDENTIFIER,
  hasDotSegment,
  isBlank,
  parseDuration,
} from '../values.js';
import { text } from './scalars.js';

/** A rule on a parsed value: the problem, or undefined. */
export const rule = <T>(problem: (value: T) => string | undefined) =>
  v.rawCheck<T>(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const message = problem(dataset.value);
    if (message !== undefined) addIssue({ message });
  });

const blank = (text: string): string | undefined =>
  isBlank(text) ? 'must not be blank' : undefined;
export const notBlank = v.check((text: string) => !isBlank(text), 'must not be blank');
export const secretNotBlank = v.check((s: Secret) => !isBlank(s.reveal()), 'must not be blank');
export const nonBlank = v.pipe(text, notBlank);

export const sqlIdentifier = rule<string>((name) =>
  isBlank(name)
    ? 'must not be blank'
    : SQL_IDENTIFIER.test(name)
      ? undefined
      : name.length > SQL_IDENTIFIER_MAX_LENGTH
        ? `'${name}' is ${name.length} characters long; an SQL identifier here has at most ${SQL_IDENTIFIER_MAX_LENGTH} (PostgreSQL would cut it and use another table)`
        : `'${name}' is not a valid SQL identifier; start with a letter or an underscore and use only letters, digits, underscores and $`,
);

/** Why a header name cannot be configured, or undefined when it can. */
export function headerNameProblem(name: string): string | undefined {
  if (!isHeaderToken(name)) {
    return `'${name}' is not a valid header name; use letters, digits and !#$%&'*+-.^_\`|~ only`;
  }
  if (isFramingHeader(name.toLowerCase())) {
    return `'${name}' frames the request or the connection, which QueueBox does itself for every message; remove it`;
  }
  return ownedHeaderProblem(name);
}

/** Why a destination header may not take this name: QueueBox sets it (core's `OwnedHeader`). */
export function ownedHeaderProblem(name: string): string | undefined {
  return isOwnedHeader(name)
    ? `'${name}' is a header QueueBox sets itself on every message, so a receiver can trust it; remove it`
    : undefined;
}

/** Why a header value cannot be configured (the value is not printed: it may be a secret). */
export function headerValueProblem(value: string): string | undefined {
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    // Tab is allowed inside a value; every other control character breaks the header line.
    if ((code < 0x20 && code !== 0x09) || code === 0x7f) {
      return 'must not hold a control character such as a line break (look for a trailing newline); HTTP cannot carry it';
    }
  }
  return undefined;
}

export const headerName = rule<string>((name) => blank(name) ?? headerNameProblem(name));
/** A broker destination's static header name: any text, except a header QueueBox owns. */
export const notOwnedHeader = rule<string>(ownedHeaderProblem);
export const headerValue = rule<string>(headerValueProblem);
export const secretHeaderValue = rule<Secret>(
  (secret) => blank(secret.reveal()) ?? headerValueProblem(secret.reveal()),
);

/** A destination path: a `.` or `..` segment would make the server resolve it to another target. */
export const noDotSegment = rule<string>((path) =>
  hasDotSegment(path)
    ? `'${path}' must not hold a '.' or '..' segment, because the server resolves it and the target changes`
    : undefined,
);

/** A topic pattern (`*` one segment, `**` any number) or a glob; `***` is neither. */
export const glob = (any: string) =>
  rule<string>(
    (pattern) =>
      blank(pattern) ??
      (pattern.includes('***')
        ? `'${pattern}' holds '***'; use '*' for one segment and '**' for ${any}`
        : undefined),
  );

export const nonEmptyList = (entry: string) =>
  rule<string[]>((items) =>
    items.length === 0
      ? 'the list must not be empty'
      : items.some(isBlank)
        ? `must not hold a blank ${entry}`
        : undefined,
  );

/** A JSONPath or list of JSONPaths: non-empty, and every path definite (spec §7.1). */
export const jsonPaths = v.rawCheck<string[]>(({ dataset, addIssue }) => {
  if (!dataset.typed) return;
  if (dataset.value.length === 0) {
    addIssue({
      message: 'the list must not be empty; remove the key or name at least one JSONPath',
    });
    return;
  }
  for (const text of dataset.value) {
    if (isBlank(text)) {
      addIssue({ message: 'must not hold a blank JSONPath' });
      continue;
    }
    try {
      parseJsonPath(text);
    } catch (error: unknown) {
      if (!(error instanceof JsonPathError)) throw error;
      addIssue({
        message:
          error.problem === 'indefinite'
            ? `'${text}' is not a definite JSONPath: ${error.message}, so QueueBox cannot read one value from it; use a definite path such as '$.data.id'`
            : `'${text}' is not a valid JSONPath: ${error.message}`,
      });
    }
  }
});

/** A duration of `initialDelay`: `<n><s|m|h|d>`, at most 2^31−1 seconds. */
export const delay = rule<string>((text) => {
  const ms = parseDuration(text);
  if (ms === undefined) return `'${text}' is not a duration; ${DURATION_HINT}`;
  if (ms / 1000 > MAX_INITIAL_DELAY_SECONDS)
    return `'${text}' is too long; the longest delay is ${MAX_INITIAL_DELAY_SECONDS} seconds`;
  return undefined;
});
