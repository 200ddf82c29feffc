/**
 * Definite JSONPath: the subset of Jayway JsonPath (the reference's library) that names at most
 * one node. Sources read their idempotency key, event type, aggregate id and publish time with it,
 * and the configuration refuses every other path at start, because a path that can match several
 * nodes makes the key depend on the message (spec §7.1).
 *
 * Accepted: `$`, `$.a.b`, `$['a']`, `$["x-y"]`, `$.a[0]`, `$.a[-1]` (from the end). Like Jayway, a
 * path that does not start with `$` is read as `$.` + path (`id` ≡ `$.id`).
 * Indefinite (refused): deep scan `..`, wildcards `*` / `[*]`, filters `[?(...)]`, unions
 * `[0,1]` / `['a','b']`, slices `[0:2]`.
 */
import type { Json } from './model.js';

export type JsonPathSegment =
  | { readonly kind: 'property'; readonly name: string }
  | { readonly kind: 'index'; readonly index: number };

export type JsonPathSegments = readonly JsonPathSegment[];

/** `indefinite`: well formed but may match several nodes. `invalid`: not a JSONPath at all. */
export type JsonPathProblem = 'indefinite' | 'invalid';

export class JsonPathError extends Error {
  readonly problem: JsonPathProblem;

  constructor(problem: JsonPathProblem, reason: string) {
    super(reason);
    this.name = 'JsonPathError';
    this.problem = problem;
  }
}

const invalid = (reason: string): JsonPathError => new JsonPathError('invalid', reason);
const indefinite = (reason: string): JsonPathError => new JsonPathError('indefinite', reason);

/** Characters that end a dot-notation name. */
const NAME_END = new Set(['.', '[']);
/** Characters a dot-notation name may not hold (Jayway reads them as syntax). */
const NAME_FORBIDDEN = /[\]'"(),?*\s]/;

/** Parses a definite JSONPath; throws a {@link JsonPathError} that says why it is refused. */
export function parseJsonPath(path: string): JsonPathSegments {
  let text = path.trim();
  if (text.length === 0) throw invalid('the path is empty');
  if (text.startsWith('@')) throw invalid("a path must start with '$', not '@'");
  // Positions in messages count in the text as written, not in the `$.` that Jayway adds.
  let shift = 1;
  if (!text.startsWith('$')) {
    text = `$.${text}`;
    shift = -1;
  }
  return new Parser(text, shift).parse();
}

class Parser {
  readonly #text: string;
  #pos = 1; // after '$'
  readonly #segments: JsonPathSegment[] = [];
  readonly #shift: number;

  constructor(text: string, shift: number) {
    this.#text = text;
    this.#shift = shift;
  }

  /** The 1-based position of an index of the parsed text, as the operator wrote it. */
  #at(index: number): number {
    return index + this.#shift;
  }

  parse(): JsonPathSegments {
    while (this.#pos < this.#text.length) {
      const char = this.#text[this.#pos];
      if (char === '.') this.#dot();
      else if (char === '[') this.#bracket();
      else
        throw invalid(
          `unexpected '${char}' at position ${this.#at(this.#pos)}; expected '.' or '['`,
        );
    }
    return this.#segments;
  }

  #dot(): void {
    this.#pos += 1;
    if (this.#text[this.#pos] === '.')
      throw indefinite("the deep scan '..' matches any number of nodes");
    const start = this.#pos;
    while (this.#pos < this.#text.length && !NAME_END.has(this.#text[this.#pos] ?? ''))
      this.#pos += 1;
    const name = this.#text.slice(start, this.#pos);
    if (name.length === 0)
      throw invalid(`a '.' at position ${this.#at(start - 1)} is not followed by a name`);
    if (name === '*') throw indefinite("the wildcard '*' matches any number of nodes");
    if (name.includes('(')) throw invalid(`the function '${name}' is not supported`);
    if (NAME_FORBIDDEN.test(name))
      throw invalid(`'${name}' is not a valid name; write it as ['${name}']`);
    this.#segments.push({ kind: 'property', name });
  }

  #bracket(): void {
    const open = this.#pos;
    this.#pos += 1;
    this.#skipSpaces();
    const char = this.#text[this.#pos];
    if (char === undefined) throw invalid(`the '[' at position ${this.#at(open)} is not closed`);
    if (char === '?') throw indefinite('a filter matches any number of nodes');
    if (char === '*') throw indefinite("the wildcard '[*]' matches any number of nodes");
    const segment = char === "'" || char === '"' ? this.#quoted(char) : this.#index();
    this.#skipSpaces();
    const next = this.#text[this.#pos];
    if (next === ',') throw indefinite('a union of several names or indexes matches several nodes');
    if (next === ':') throw indefinite('an array slice matches several nodes');
    if (next !== ']') throw invalid(`the '[' at position ${this.#at(open)} is not closed`);
    this.#pos += 1;
    this.#segments.push(segment);
  }

  #quoted(quote: string): JsonPathSegment {
    this.#pos += 1;
    let name = '';
    for (;;) {
      const char = this.#text[this.#pos];
      if (char === undefined) throw invalid('a quoted name is not closed');
      this.#pos += 1;
      if (char === quote) return { kind: 'property', name };
      if (char === '\\') {
        const escaped = this.#text[this.#pos];
        if (escaped === undefined) throw invalid('a quoted name is not closed');
        this.#pos += 1;
        name += escaped;
      } else {
        name += char;
      }
    }
  }

  #index(): JsonPathSegment {
    const match = /^-?\d+/.exec(this.#text.slice(this.#pos));
    if (match === null) {
      // `[:2]` is a slice with no start: indefinite rather than malformed.
      if (this.#text[this.#pos] === ':') throw indefinite('an array slice matches several nodes');
      throw invalid(`expected a quoted name or an index at position ${this.#at(this.#pos)}`);
    }
    this.#pos += match[0].length;
    const index = Number(match[0]);
    if (!Number.isSafeInteger(index)) throw invalid(`the index ${match[0]} is too large`);
    return { kind: 'index', index };
  }

  #skipSpaces(): void {
    while (this.#text[this.#pos] === ' ') this.#pos += 1;
  }
}

/**
 * Reads the node a parsed path names, or `undefined` when the document has no such node. A
 * negative index counts from the end of the array (`-1` is the last element).
 */
export function readJsonPath(segments: JsonPathSegments, json: Json): Json | undefined {
  let node: Json | undefined = json;
  for (const segment of segments) {
    if (node === undefined || node === null || typeof node !== 'object') return undefined;
    if (segment.kind === 'property') {
      if (Array.isArray(node) || !Object.hasOwn(node, segment.name)) return undefined;
      node = node[segment.name];
    } else {
      if (!Array.isArray(node)) return undefined;
      const index = segment.index < 0 ? node.length + segment.index : segment.index;
      node = index >= 0 && index < node.length ? node[index] : undefined;
    }
  }
  return node;
}
