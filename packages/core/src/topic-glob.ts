/**
 * Topic patterns of routes and header-filter `matches` rules (spec §5.1): `**` is any text
 * including dots, `*` is one non-empty segment, every other character is literal. Patterns are
 * anchored to the whole topic, so `order.*` never matches `order.item.added`.
 */
import { QueueBoxError } from './errors.js';

const REGEX_SYNTAX = /[\\^$.*+?()[\]{}|/]/g;

/**
 * Compiles a pattern once at start; a blank pattern or one holding `***` stops the start, since
 * neither has a meaning an operator could have intended.
 */
export function compileTopicPattern(pattern: string): RegExp {
  // dotAll: `**` means everything, even a topic that holds a line break.
  return new RegExp(`^(?:${topicPatternSource(pattern)})$`, 's');
}

/**
 * The pattern as the body of a regular expression, unanchored: `.*` for `**`, `[^.]+` for `*`,
 * every other character escaped with a backslash. The same text is a PostgreSQL advanced regular
 * expression with the same meaning (there `.` matches a line break too), which is what lets the
 * claim pass over the topics of a route in SQL.
 */
export function topicPatternSource(pattern: string): string {
  if (pattern.trim() === '') {
    throw new QueueBoxError('config_invalid', 'A topic pattern must not be blank.');
  }
  if (pattern.includes('***')) {
    throw new QueueBoxError(
      'config_invalid',
      `The topic pattern '${pattern}' contains '***'. Use '**' for any text or '*' for one segment.`,
    );
  }
  let source = '';
  for (let i = 0; i < pattern.length; i++) {
    if (pattern.startsWith('**', i)) {
      source += '.*';
      i++;
    } else if (pattern[i] === '*') {
      source += '[^.]+';
    } else {
      source += (pattern[i] ?? '').replace(REGEX_SYNTAX, '\\$&');
    }
  }
  return source;
}
