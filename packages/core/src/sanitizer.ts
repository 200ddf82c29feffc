/**
 * The error sanitizer of spec §16.4. Every error text that reaches a log line, a response or
 * `last_error` passes through here first, because driver and HTTP errors echo connection strings,
 * headers and response bodies verbatim.
 *
 * Each step is a hand-written forward scan, not a regex: the input is partly attacker-controlled
 * (a webhook body, a broker's error text) and the reference once shipped a backtracking pattern
 * that went quadratic on it. Every scan below visits each character a bounded number of times.
 * The shared corpus (`redaction-corpus.json`) pins the behaviour across languages.
 */
import { toError } from './errors.js';

export const SANITIZED_MAX_LENGTH = 2000;
export const TRUNCATION_MARKER = '...[truncated]';
const MAX_CAUSE_DEPTH = 5;
const REDACTED = '[REDACTED]';

/**
 * Key endings that mark a credential, split where a separator (`-`, `_`, `.`) may stand. Matching
 * is by suffix, so `x-api-key`, `access_token`, `client_secret`, `set-cookie` and
 * `proxy-authorization` of the spec's list are covered by their last word(s).
 */
const SECRET_KEYS: readonly (readonly string[])[] = [
  ['authorization'],
  ['api', 'key'],
  ['cookie'],
  ['token'],
  ['secret'],
  ['password'],
  ['pwd'],
  ['passwd'],
  ['credential'],
  ['credentials'],
  ['passphrase'],
  ['private', 'key'],
  // `aws_secret_access_key`, `secret_key`, `access_key`: cloud keys beyond the spec's list.
  ['access', 'key'],
  ['secret', 'key'],
];
const AUTH_SCHEMES = ['basic', 'bearer', 'digest', 'negotiate', 'token'];

const TAB = 9;
const LF = 10;
const CR = 13;
const SPACE = 32;
const DQUOTE = 34;
const SQUOTE = 39;
const COLON = 58;
const EQUALS = 61;
const AT = 64;
const SLASH = 47;
const BACKSLASH = 92;
const PERCENT = 37;
const HYPHEN = 45;
const DOT = 46;
const KEY_SEPARATORS = codes('-_.');
/** End an unquoted value. */
const VALUE_TERMINATORS = codes(',;}]&"');
/** RFC 6750 b64token characters besides letters and digits, plus `=` padding. */
const TOKEN_PUNCTUATION = codes('-._~+/=');

function codes(chars: string): readonly number[] {
  return Array.from(chars, (ch) => ch.charCodeAt(0));
}

/** Redacts credentials from a text and bounds its length. */
export function sanitize(text: string): string {
  const keyed = redactKeyValues(redactPrivateKeyBlocks(text));
  return truncate(redactPrefixedTokens(redactBareSchemeTokens(maskUrlUserInfo(keyed))));
}

/**
 * The throwable form `Name: message | caused by Name: message ...` (at most five errors) plus
 * ` | body: <detail>` for the first error in the chain that carries a `detail`, sanitized.
 */
export function sanitizeError(error: unknown): string {
  const chain: string[] = [];
  let detail: string | undefined;
  let current: unknown = error;
  for (let depth = 0; depth < MAX_CAUSE_DEPTH; depth++) {
    const normalised = toError(current);
    chain.push(describe(normalised));
    detail ??= detailOf(current);
    current = normalised.cause;
    if (current === undefined || current === null) break;
  }
  const body = detail === undefined ? '' : ` | body: ${detail}`;
  return sanitize(chain.join(' | caused by ') + body);
}

function describe(error: Error): string {
  const message = error.message;
  return message === '' ? simpleName(error) : `${simpleName(error)}: ${message}`;
}

/** A subclass that forgets to set `name` still reports its class, like Java's simple name. */
function simpleName(error: Error): string {
  if (error.name !== '' && error.name !== 'Error') return error.name;
  const ctor: unknown = error.constructor;
  const name = typeof ctor === 'function' ? ctor.name : '';
  return name !== '' ? name : 'Error';
}

function detailOf(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || !('detail' in value)) return undefined;
  const detail = value.detail;
  return typeof detail === 'string' && detail !== '' ? detail : undefined;
}

function truncate(text: string): string {
  if (text.length <= SANITIZED_MAX_LENGTH) return text;
  let cut = SANITIZED_MAX_LENGTH - TRUNCATION_MARKER.length;
  // Never leave half a surrogate pair in front of the marker.
  if (isHighSurrogate(text.charCodeAt(cut - 1))) cut--;
  return text.slice(0, cut) + TRUNCATION_MARKER;
}

// Step 1: `<key>[quote] (:|=) <value>` for keys that end in a credential word. Beyond the
// spec's forms: a JSON text quoted inside another (`{\"password\":\"x\"}`), a URL-encoded
// separator (`password%3Dx`, `%22password%22%3A%22x%22`), Unicode spaces around the separator,
// and a value on the line after `password:`.

function redactKeyValues(text: string): string {
  const out: string[] = [];
  let last = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const width = c === COLON || c === EQUALS ? 1 : encodedSeparatorAt(text, i) ? 3 : 0;
    if (width === 0) continue;
    const keyEnd = secretKeyEnd(text, i, last, width === 3);
    if (keyEnd < 0) continue;
    const end = width === 3 ? encodedValueEnd(text, i + 3) : valueEnd(text, i);
    out.push(text.slice(last, keyEnd), '=', REDACTED);
    last = end;
    i = end - 1;
  }
  if (out.length === 0) return text;
  out.push(text.slice(last));
  return out.join('');
}

/** `%3D` (`=`) or `%3A` (`:`), either letter case. */
function encodedSeparatorAt(text: string, i: number): boolean {
  if (text.charCodeAt(i) !== PERCENT || text.charCodeAt(i + 1) !== 51 /* 3 */) return false;
  const c = lower(text.charCodeAt(i + 2));
  return c === 100 /* d */ || c === 97; /* a */
}

/** `%22` or `%27` (an encoded quote) ending at `end`. */
function encodedQuoteBefore(text: string, end: number, floor: number): boolean {
  if (end - 3 < floor || text.charCodeAt(end - 3) !== PERCENT) return false;
  return text.charCodeAt(end - 2) === 50 /* 2 */ && isEncodedQuoteDigit(text.charCodeAt(end - 1));
}

function isEncodedQuoteDigit(c: number): boolean {
  return c === 50 /* 2 */ || c === 55; /* 7 */
}

/**
 * Looks back from a separator over blanks and one closing quote (raw, escaped as `\"`, or
 * URL-encoded) for a credential key; returns where the key ends, or -1. The look-back never
 * crosses `floor` (text already redacted), and the blanks and backslashes it skips touch only
 * this separator, so the total work stays linear.
 */
function secretKeyEnd(text: string, separator: number, floor: number, encoded: boolean): number {
  let pos = separator;
  while (pos > floor && isBlank(text.charCodeAt(pos - 1))) pos--;
  if (pos > floor && isQuote(text.charCodeAt(pos - 1))) {
    pos--;
    while (pos > floor && text.charCodeAt(pos - 1) === BACKSLASH) pos--;
  } else if (encoded && encodedQuoteBefore(text, pos, floor)) {
    pos -= 3;
  }
  for (const parts of SECRET_KEYS) {
    if (endsWithKey(text, pos, floor, parts)) return pos;
  }
  return -1;
}

function endsWithKey(text: string, end: number, floor: number, parts: readonly string[]): boolean {
  let pos = end;
  for (let k = parts.length - 1; k >= 0; k--) {
    const part = parts[k] ?? '';
    if (k < parts.length - 1 && pos > floor && isKeySeparator(text.charCodeAt(pos - 1))) pos--;
    if (pos - part.length < floor) return false;
    for (let j = 0; j < part.length; j++) {
      if (lower(text.charCodeAt(pos - part.length + j)) !== part.charCodeAt(j)) return false;
    }
    pos -= part.length;
  }
  return true;
}

/**
 * A quoted value ends at its closing quote (backslash escapes honoured; an unclosed quote runs to
 * the end of the line). After `:` a value may hold spaces and runs to a terminator or the end of
 * the line; after `=` it also ends at whitespace, so the words that follow survive.
 */
function valueEnd(text: string, separator: number): number {
  const n = text.length;
  const stopAtSpace = text.charCodeAt(separator) === EQUALS;
  let j = nextLineValue(text, skipBlanks(text, separator + 1));
  // Already redacted (an error text sanitized twice): keep the marker whole, so sanitizing is
  // idempotent instead of leaving a stray `]` behind.
  if (text.startsWith(REDACTED, j)) return j + REDACTED.length;
  const first = text.charCodeAt(j);
  if (isQuote(first)) return quotedEnd(text, j, first);
  if (first === BACKSLASH) {
    const escaped = escapedQuotedEnd(text, j);
    if (escaped > 0) return escaped;
  }
  j = skipAuthScheme(text, j);
  while (j < n) {
    const c = text.charCodeAt(j);
    if (isValueTerminator(c) || c === LF || c === CR || (stopAtSpace && isWhitespace(c))) break;
    j++;
  }
  return j;
}

/**
 * `password:` at the end of a line, its value on the next (a YAML or a pretty-printed dump): the
 * value starts after one line break and its indentation. Otherwise `start` itself.
 */
function nextLineValue(text: string, start: number): number {
  let j = start;
  if (text.charCodeAt(j) === CR) j++;
  if (text.charCodeAt(j) === LF) j++;
  if (j === start) return start;
  const value = skipBlanks(text, j);
  const c = text.charCodeAt(value);
  return value < text.length && c !== LF && c !== CR ? value : start;
}

function quotedEnd(text: string, open: number, quote: number): number {
  for (let j = open + 1; j < text.length; j++) {
    const c = text.charCodeAt(j);
    if (c === BACKSLASH) j++;
    else if (c === quote) return j + 1;
    else if (c === LF || c === CR) return j;
  }
  return text.length;
}

/**
 * A value quoted inside a quoted JSON text: `\"hunter2\"`. It opens with a run of backslashes
 * and a quote and closes at the next quote behind a run of the same length (a longer run is a
 * quote escaped inside the value); the end of the line ends it too. -1 when `open` starts no
 * such quote.
 */
function escapedQuotedEnd(text: string, open: number): number {
  let j = open;
  while (text.charCodeAt(j) === BACKSLASH) j++;
  const depth = j - open;
  const quote = text.charCodeAt(j);
  if (!isQuote(quote)) return -1;
  for (j++; j < text.length; j++) {
    const c = text.charCodeAt(j);
    if (c === LF || c === CR) return j;
    if (c !== BACKSLASH) continue;
    const run = j;
    while (text.charCodeAt(j) === BACKSLASH) j++;
    if (text.charCodeAt(j) === quote && j - run === depth) return j + 1;
    if (j >= text.length || text.charCodeAt(j) === LF || text.charCodeAt(j) === CR) return j;
  }
  return text.length;
}

/**
 * After `%3D` or `%3A`: an optional encoded quote, then the value up to whitespace, a raw value
 * terminator, or an encoded one (`%26` `&`, `%2C` `,`, `%3B` `;`, `%7D` `}`, `%5D` `]`, `%22`).
 */
function encodedValueEnd(text: string, start: number): number {
  let j = start;
  if (text.startsWith(REDACTED, j)) return j + REDACTED.length;
  if (text.charCodeAt(j) === PERCENT && text.charCodeAt(j + 1) === 50) {
    if (isEncodedQuoteDigit(text.charCodeAt(j + 2))) j += 3;
  }
  for (; j < text.length; j++) {
    const c = text.charCodeAt(j);
    if (isValueTerminator(c) || isWhitespace(c)) break;
    if (c === PERCENT && isEncodedTerminator(text, j)) break;
  }
  return j;
}

function isEncodedTerminator(text: string, percent: number): boolean {
  const hi = text.charCodeAt(percent + 1);
  const lo = lower(text.charCodeAt(percent + 2));
  if (hi === 50 /* 2 */) return lo === 54 /* 6 */ || lo === 99 /* c */ || lo === 50 || lo === 55;
  if (hi === 51 /* 3 */) return lo === 98; /* b */
  if (hi === 55 /* 7 */) return lo === 100; /* d */
  if (hi === 53 /* 5 */) return lo === 100; /* d */
  return false;
}

/** `Authorization=Bearer abc`: the scheme goes with the value, so `abc` is not left behind. */
function skipAuthScheme(text: string, start: number): number {
  const wordEnd = letterRunEnd(text, start);
  if (!isAuthScheme(text, start, wordEnd)) return start;
  const valueStart = skipBlanks(text, wordEnd);
  if (valueStart === wordEnd || valueStart >= text.length) return start;
  const c = text.charCodeAt(valueStart);
  return isValueTerminator(c) || isWhitespace(c) ? start : valueStart;
}

// Step 2: user information of `scheme://user:password@host`.

/**
 * A password may hold `@`, `/` and whitespace, so the user information ends at the last `@`
 * before the URL visibly ends. A `/` followed by whitespace within one `@`-separated stretch is
 * that end (a path followed by prose). Tables of the next `@`, `/` and whitespace make each stretch
 * O(1), and masked stretches are never scanned again, which keeps hostile input linear.
 */
function maskUrlUserInfo(text: string): string {
  if (!text.includes('@') || !text.includes(':/')) return text;
  const n = text.length;
  const nextAt = nextIndexTable(text, (c) => c === AT);
  const nextSlash = nextIndexTable(text, (c) => c === SLASH);
  const nextSpace = nextIndexTable(text, isWhitespace);
  const lastUserInfoAt = (from: number): number => {
    let found = -1;
    for (let pos = from; pos <= n; pos = found + 1) {
      const at = nextAt[pos] ?? n;
      const slash = nextSlash[pos] ?? n;
      if (at >= n || (slash < at && (nextSpace[slash] ?? n) < at)) break;
      found = at;
    }
    return found;
  };

  const out: string[] = [];
  let last = 0;
  let i = 0;
  for (;;) {
    const k = text.indexOf(':/', i);
    if (k < 0) break;
    // No scheme is required: `://user:pw@host` in a message leaks the same password.
    i = k + 1;
    // `scheme:/user:pw@host` (one slash) is malformed but still carries a password.
    const userStart = text.charCodeAt(k + 2) === SLASH ? k + 3 : k + 2;
    let colon = userStart;
    while (colon < n && isUserChar(text.charCodeAt(colon))) colon++;
    if (text.charCodeAt(colon) !== COLON) {
      i = Math.max(i, colon);
      continue;
    }
    const at = lastUserInfoAt(colon + 1);
    if (at < 0) {
      i = colon;
      continue;
    }
    out.push(text.slice(last, userStart), '***');
    last = at;
    i = at + 1;
  }
  if (out.length === 0) return text;
  out.push(text.slice(last));
  return out.join('');
}

/** table[i] = the first index >= i whose character matches, or text.length. */
function nextIndexTable(text: string, matches: (c: number) => boolean): Int32Array {
  const table = new Int32Array(text.length + 1);
  table[text.length] = text.length;
  for (let i = text.length - 1; i >= 0; i--) {
    table[i] = matches(text.charCodeAt(i)) ? i : (table[i + 1] ?? text.length);
  }
  return table;
}

// Step 3: `Bearer <token>` and friends outside a key/value pair.

/**
 * The token must look like a credential (a digit or `=`, or at least 16 token characters), so
 * "the token bucket" and "Digest authentication failed" stay readable.
 */
function redactBareSchemeTokens(text: string): string {
  const n = text.length;
  return redactAtWordStarts(text, isWordChar, (wordStart) => {
    const wordEnd = letterRunEnd(text, wordStart);
    if (!isAuthScheme(text, wordStart, wordEnd)) return { resume: wordEnd };
    const tokenStart = skipBlanks(text, wordEnd);
    if (tokenStart === wordEnd) return { resume: wordEnd };
    let tokenEnd = tokenStart;
    let credentialLike = false;
    while (tokenEnd < n && isTokenChar(text.charCodeAt(tokenEnd))) {
      const t = text.charCodeAt(tokenEnd);
      if (isDigit(t) || t === EQUALS) credentialLike = true;
      tokenEnd++;
    }
    if (!credentialLike && tokenEnd - tokenStart < 16) return { resume: wordEnd };
    return { resume: tokenEnd, from: tokenStart };
  });
}

/** Where a scan goes on, and the span [from, resume) to redact when `from` is given. */
interface WordStep {
  readonly resume: number;
  readonly from?: number;
}

/**
 * The scan steps 3 and 4 share: `visit` is called at each letter that starts a word (the
 * character before it is not one of `partOfWord`), and says where to go on and what to redact.
 * Text without a redaction is returned as it is, unallocated.
 */
function redactAtWordStarts(
  text: string,
  partOfWord: (c: number) => boolean,
  visit: (wordStart: number) => WordStep,
): string {
  const n = text.length;
  const out: string[] = [];
  let last = 0;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (!isLetter(c) || (i > 0 && partOfWord(text.charCodeAt(i - 1)))) {
      i++;
      continue;
    }
    const step = visit(i);
    if (step.from !== undefined) {
      out.push(text.slice(last, step.from), REDACTED);
      last = step.resume;
    }
    i = step.resume;
  }
  if (out.length === 0) return text;
  out.push(text.slice(last));
  return out.join('');
}

// Step 0: a PEM private key block, wherever it stands (its body spans lines, so no key/value
// rule would reach past its first line).

const PEM_BEGIN = '-----BEGIN ';
const PEM_END = '-----END ';
const PEM_DASHES = '-----';
/** The longest label looked at: `-----BEGIN ENCRYPTED PRIVATE KEY-----` and the like. */
const PEM_LABEL_MAX = 64;

function redactPrivateKeyBlocks(text: string): string {
  if (!text.includes(PEM_BEGIN)) return text;
  const out: string[] = [];
  let last = 0;
  let i = 0;
  for (;;) {
    const begin = text.indexOf(PEM_BEGIN, i);
    if (begin < 0) break;
    const labelStart = begin + PEM_BEGIN.length;
    const close = text.indexOf(PEM_DASHES, labelStart);
    i = labelStart;
    if (close < 0 || close - labelStart > PEM_LABEL_MAX) continue;
    if (!text.slice(labelStart, close).endsWith('PRIVATE KEY')) continue;
    // The block ends after its END line; with none, everything after BEGIN is the key.
    const end = text.indexOf(PEM_END, close);
    const endClose = end < 0 ? -1 : text.indexOf(PEM_DASHES, end + PEM_END.length);
    const stop = endClose < 0 ? text.length : endClose + PEM_DASHES.length;
    out.push(text.slice(last, begin), REDACTED);
    last = stop;
    i = stop;
    if (stop >= text.length) break;
  }
  if (out.length === 0) return text;
  out.push(text.slice(last));
  return out.join('');
}

// Step 3b: tokens whose issuer gave them a recognisable prefix (Stripe `sk_live_`, GitHub
// `ghp_`, Slack `xoxb-`, AWS `AKIA`, a JWT's `eyJ`...), standing alone in a text. The prefix is
// kept, so an operator still sees which kind of credential it was.

interface TokenPrefix {
  readonly prefix: string;
  /** The fewest token characters after the prefix for the word to count as a credential. */
  readonly min: number;
  /** Whether the prefix is kept in front of the marker. */
  readonly keep: boolean;
}

const TOKEN_PREFIXES: readonly TokenPrefix[] = [
  ...['sk_live_', 'sk_test_', 'rk_live_', 'rk_test_', 'whsec_'].map((prefix) => ({
    prefix,
    min: 8,
    keep: true,
  })),
  ...['ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_', 'github_pat_', 'glpat-'].map((prefix) => ({
    prefix,
    min: 16,
    keep: true,
  })),
  ...['xoxa-', 'xoxb-', 'xoxp-', 'xoxr-', 'xoxs-'].map((prefix) => ({
    prefix,
    min: 8,
    keep: true,
  })),
  { prefix: 'AKIA', min: 16, keep: true },
  { prefix: 'ASIA', min: 16, keep: true },
  { prefix: 'AIza', min: 30, keep: true },
  { prefix: 'npm_', min: 30, keep: true },
  { prefix: 'sk-', min: 20, keep: true },
  // A JWT: base64url JSON (`{"` is `eyJ`), then a payload and a signature after dots.
  { prefix: 'eyJ', min: 17, keep: false },
];

/** The prefixes by their first character, so most words cost one lookup. */
const PREFIXES_BY_FIRST = new Map<number, TokenPrefix[]>();
for (const entry of TOKEN_PREFIXES) {
  const first = entry.prefix.charCodeAt(0);
  PREFIXES_BY_FIRST.set(first, [...(PREFIXES_BY_FIRST.get(first) ?? []), entry]);
}

function redactPrefixedTokens(text: string): string {
  const n = text.length;
  return redactAtWordStarts(text, isTokenWordChar, (i) => {
    const match = PREFIXES_BY_FIRST.get(text.charCodeAt(i))?.find((p) =>
      text.startsWith(p.prefix, i),
    );
    let end = i + 1;
    if (match === undefined) {
      while (end < n && isTokenWordChar(text.charCodeAt(end))) end++;
      return { resume: end };
    }
    const bodyStart = i + match.prefix.length;
    end = bodyStart;
    let dots = 0;
    while (end < n && isTokenWordChar(text.charCodeAt(end))) {
      if (text.charCodeAt(end) === DOT) dots++;
      end++;
    }
    const jwt = match.prefix === 'eyJ';
    if (end - bodyStart >= match.min && (!jwt || dots >= 2)) {
      return { resume: end, from: match.keep ? bodyStart : i };
    }
    return { resume: end };
  });
}

/** Characters of a prefixed token: base64url and `.` (a JWT's separators). */
function isTokenWordChar(c: number): boolean {
  return isWordChar(c) || c === HYPHEN || c === DOT;
}

function isAuthScheme(text: string, start: number, end: number): boolean {
  const length = end - start;
  return AUTH_SCHEMES.some((scheme) => {
    if (scheme.length !== length) return false;
    for (let j = 0; j < length; j++) {
      if (lower(text.charCodeAt(start + j)) !== scheme.charCodeAt(j)) return false;
    }
    return true;
  });
}

function letterRunEnd(text: string, start: number): number {
  let j = start;
  while (j < text.length && isLetter(text.charCodeAt(j))) j++;
  return j;
}

function skipBlanks(text: string, start: number): number {
  let j = start;
  while (j < text.length && isBlank(text.charCodeAt(j))) j++;
  return j;
}

function lower(c: number): number {
  return c >= 65 && c <= 90 ? c + 32 : c;
}

function isLetter(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

function isWordChar(c: number): boolean {
  return isLetter(c) || isDigit(c) || c === 95;
}

/** A space or tab, or a Unicode space (a no-break space around `=` hides nothing). */
function isBlank(c: number): boolean {
  return c === SPACE || c === TAB || (c >= 0xa0 && isUnicodeSpace(c));
}

function isWhitespace(c: number): boolean {
  return c === SPACE || (c >= TAB && c <= CR) || (c >= 0xa0 && isUnicodeSpace(c));
}

function isUnicodeSpace(c: number): boolean {
  return (
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200b) ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

function isQuote(c: number): boolean {
  return c === DQUOTE || c === SQUOTE;
}

function isKeySeparator(c: number): boolean {
  return KEY_SEPARATORS.includes(c);
}

function isValueTerminator(c: number): boolean {
  return VALUE_TERMINATORS.includes(c);
}

/** The user part of user information; `@` is allowed so `me@corp:pw@host` masks up to the host. */
function isUserChar(c: number): boolean {
  return !isWhitespace(c) && c !== SLASH && c !== COLON;
}

function isTokenChar(c: number): boolean {
  return isLetter(c) || isDigit(c) || TOKEN_PUNCTUATION.includes(c);
}

function isHighSurrogate(c: number): boolean {
  return c >= 0xd800 && c <= 0xdbff;
}
