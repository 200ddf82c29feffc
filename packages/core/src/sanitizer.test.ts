import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { QueueBoxError } from './errors.js';
import { SANITIZED_MAX_LENGTH, TRUNCATION_MARKER, sanitize, sanitizeError } from './sanitizer.js';

interface CorpusCase {
  readonly name: string;
  readonly input: string;
  readonly expected?: string;
  readonly mustNotContain?: readonly string[];
  readonly mustContain?: readonly string[];
}

interface Corpus {
  readonly maxLength: number;
  readonly truncationMarker: string;
  readonly cases: readonly CorpusCase[];
}

// The corpus is shared with the pull clients; testdata/ holds an unchanged copy of the spec's file.
const readCorpus = (name: string) =>
  JSON.parse(
    readFileSync(fileURLToPath(new URL(`../testdata/${name}`, import.meta.url)), 'utf8'),
  ) as Corpus;
const corpus = readCorpus('redaction-corpus.json');
// QueueBox's own cases beside it: secrets the spec's rules let through, and their kin.
const ownCorpus = readCorpus('redaction-corpus-queuebox.json');

function expectCase(c: CorpusCase): void {
  expect(c.expected ?? c.mustNotContain ?? c.mustContain).toBeDefined();
  const output = sanitize(c.input);
  if (c.expected !== undefined) expect(output).toBe(c.expected);
  for (const secret of c.mustNotContain ?? []) expect(output).not.toContain(secret);
  for (const kept of c.mustContain ?? []) expect(output).toContain(kept);
}

describe('the shared redaction corpus', () => {
  it('holds every case and the bounds this sanitizer uses', () => {
    expect(corpus.cases).toHaveLength(45);
    expect(corpus.maxLength).toBe(SANITIZED_MAX_LENGTH);
    expect(corpus.truncationMarker).toBe(TRUNCATION_MARKER);
  });

  it.each(corpus.cases.map((c) => [c.name, c] as const))('%s', (_name, c) => expectCase(c));

  // An error text can pass the sanitizer twice (the HTTP publisher's text, then last_error).
  it('is idempotent on every case', () => {
    for (const c of corpus.cases) {
      const once = sanitize(c.input);
      expect(sanitize(once), c.name).toBe(once);
    }
    expect(sanitize(sanitize('busy, password=hunter2'))).toBe('busy, password=[REDACTED]');
  });
});

describe("QueueBox's own redaction corpus", () => {
  it.each(ownCorpus.cases.map((c) => [c.name, c] as const))('%s', (_name, c) => expectCase(c));

  it('is idempotent on every case', () => {
    for (const c of ownCorpus.cases) {
      const once = sanitize(c.input);
      expect(sanitize(once), c.name).toBe(once);
    }
  });
});

describe('sanitize', () => {
  it('replaces a key and its value with key=[REDACTED]', () => {
    expect(sanitize('PGPASSWORD=hunter2 psql failed')).toBe('PGPASSWORD=[REDACTED] psql failed');
    expect(sanitize('Host=db;Password=hunter2;Database=q')).toBe(
      'Host=db;Password=[REDACTED];Database=q',
    );
    expect(sanitize('{"password":"he said \\"hi\\", ok"}')).toBe('{"password=[REDACTED]}');
    expect(sanitize('password: my secret pass')).toBe('password=[REDACTED]');
  });

  it('swallows an auth scheme in front of an equals value', () => {
    expect(sanitize('{Authorization=Bearer abc, X-Api-Key=def} x')).toBe(
      '{Authorization=[REDACTED], X-Api-Key=[REDACTED]} x',
    );
  });

  it('matches keys by suffix with optional separators and any case', () => {
    for (const key of [
      'x-api-key',
      'X_API_KEY',
      'apikey',
      'set-cookie',
      'x-auth-token',
      'access_token',
      'refresh.token',
      'client_secret',
      'passwd',
      'credentials',
      'passphrase',
      'private_key',
      'privateKey',
      'Proxy-Authorization',
    ]) {
      expect(sanitize(`${key}=s3cr3tvalue tail`)).toBe(`${key}=[REDACTED] tail`);
    }
  });

  it('leaves keys that only start with a credential word alone', () => {
    expect(sanitize('passwordless=true tokenizer=x secretary: Ann')).toBe(
      'passwordless=true tokenizer=x secretary: Ann',
    );
  });

  it('masks user information in front of the host', () => {
    expect(sanitize('postgres://app:hunter2@db:5432/q')).toBe('postgres://***@db:5432/q');
    expect(sanitize('amqp://guest:Sup3r S3cret@rabbit:5672/vh')).toBe('amqp://***@rabbit:5672/vh');
    expect(sanitize('nats://me@corp:pw@nats:4222')).toBe('nats://***@nats:4222');
    expect(sanitize("bad uri '://u:pw@host'")).toBe("bad uri '://***@host'");
    expect(sanitize('http://[::1]:8080/x and a@b')).toBe('http://[::1]:8080/x and a@b');
  });

  it('redacts bare scheme tokens only when they look like credentials', () => {
    expect(sanitize('got Bearer abc.def-123 back')).toBe('got Bearer [REDACTED] back');
    expect(sanitize('got Bearer abcdefghijklmnopqrst back')).toBe('got Bearer [REDACTED] back');
    expect(sanitize('Basic auth is disabled')).toBe('Basic auth is disabled');
  });

  it('truncates to the maximum length, ending with the marker', () => {
    const long = 'x'.repeat(5000);
    const output = sanitize(long);
    expect(output).toHaveLength(SANITIZED_MAX_LENGTH);
    expect(output.endsWith(TRUNCATION_MARKER)).toBe(true);
    expect(sanitize('y'.repeat(SANITIZED_MAX_LENGTH))).toBe('y'.repeat(SANITIZED_MAX_LENGTH));
  });

  it('redacts before truncating, so a cut never exposes part of a secret', () => {
    const output = sanitize(`${'a'.repeat(1980)} password=${'p'.repeat(100)}`);
    expect(output).not.toContain('ppp');
  });

  it('does not split a surrogate pair in front of the marker', () => {
    const cut = SANITIZED_MAX_LENGTH - TRUNCATION_MARKER.length;
    const output = sanitize(`${'a'.repeat(cut - 1)}😀${'b'.repeat(100)}`);
    expect(output).toBe(`${'a'.repeat(cut - 1)}${TRUNCATION_MARKER}`);
  });
});

describe('sanitize in linear time', () => {
  const size = 100_000;
  const hostile: readonly (readonly [string, (n: number) => string])[] = [
    ['password= repeated', (n) => 'password='.repeat(n / 9)],
    ['password: repeated', (n) => 'password: '.repeat(n / 10)],
    ['quoted password values', (n) => 'password="'.repeat(n / 10)],
    ['a: repeated', (n) => 'a:'.repeat(n / 2)],
    ['a= repeated', (n) => 'a='.repeat(n / 2)],
    ['blanks before separators', (n) => `${' '.repeat(n / 2)}:${'x :'.repeat(n / 6)}`],
    ['Bearer repeated', (n) => 'Bearer '.repeat(n / 7)],
    ['a long token after a scheme', (n) => `Bearer ${'a'.repeat(n)}`],
    ['a run without terminators', (n) => `token=${'a'.repeat(n)}`],
    ['schemes without an at sign', (n) => `@${'a://'.repeat(n / 4)}`],
    ['schemes with users and no at sign', (n) => `@${'a://b:'.repeat(n / 6)}`],
    ['schemes with paths before an at sign', (n) => `${'x://u:p/q '.repeat(n / 10)}@`],
    ['many at signs after one scheme', (n) => `x://u:${'@'.repeat(n)}`],
    ['at signs and colons', (n) => `x://${'a:@'.repeat(n / 3)}`],
    ['one long line', (n) => 'abc def '.repeat(n / 8)],
    // The forms QueueBox's own corpus added.
    ['backslashes before a quote and a separator', (n) => `password${'\\'.repeat(n)}":`],
    ['backslash runs before quotes and separators', (n) => 'password\\\\":'.repeat(n / 12)],
    ['escaped quotes that never close', (n) => `password:${'\\"'.repeat(n / 2)}`],
    ['escaped openings repeated', (n) => 'password:\\"x'.repeat(n / 12)],
    ['escaped values with long backslash runs', (n) => `password:\\"${'\\\\\\"'.repeat(n / 4)}`],
    ['encoded separators repeated', (n) => 'password%3D'.repeat(n / 11)],
    ['encoded quotes and separators', (n) => '%22password%22%3A%22'.repeat(n / 20)],
    ['a no-break space run before a separator', (n) => `password${'\u00a0'.repeat(n)}=x`],
    ['separators at line ends', (n) => 'password:\n'.repeat(n / 10)],
    ['PEM openings without an end', (n) => '-----BEGIN PRIVATE KEY-----'.repeat(n / 27)],
    ['PEM openings of other labels', (n) => '-----BEGIN X-----'.repeat(n / 17)],
    ['token prefixes repeated', (n) => 'sk_live_ '.repeat(n / 9)],
    ['one long prefixed token', (n) => `sk_live_${'a'.repeat(n)}`],
    ['JWT-like words', (n) => 'eyJ.a '.repeat(n / 6)],
  ];

  /**
   * The CPU time of one pass in ms: this process's, not the wall clock's, so the other processes
   * of a loaded machine do not count.
   */
  function timeMs(input: string): number {
    const started = process.cpuUsage();
    sanitize(input);
    const spent = process.cpuUsage(started);
    return (spent.user + spent.system) / 1000;
  }

  // Growth, not absolute time, decides: eight times the input costs about eight times the time
  // at linear cost and sixty-four times at quadratic cost. Small and large runs alternate and
  // the best of five counts; the floor keeps timings too small to measure from deciding anything
  // (a quadratic pass at this size takes seconds).
  it.each(hostile)(
    '%s grows linearly with the input',
    (_name, build) => {
      const small = build(size);
      const large = build(size * 8);
      expect(small.length).toBeGreaterThan(size * 0.9);
      timeMs(small); // warm the JIT
      timeMs(large);
      let bestSmall = Infinity;
      let bestLarge = Infinity;
      for (let round = 0; round < 5; round++) {
        bestSmall = Math.min(bestSmall, timeMs(small));
        bestLarge = Math.min(bestLarge, timeMs(large));
      }
      expect(bestLarge / Math.max(bestSmall, 5)).toBeLessThan(24);
    },
    120_000,
  );
});

describe('sanitizeError', () => {
  it('renders the cause chain with simple names', () => {
    const root = new TypeError('socket closed');
    const middle = new Error('query failed', { cause: root });
    const top = new QueueBoxError('publish_failed', 'Publish failed', { cause: middle });
    expect(sanitizeError(top)).toBe(
      'QueueBoxError: Publish failed | caused by Error: query failed | caused by TypeError: socket closed',
    );
  });

  it('stops after five errors', () => {
    let error: Error = new Error('level 7');
    for (let level = 6; level >= 1; level--) error = new Error(`level ${level}`, { cause: error });
    const text = sanitizeError(error);
    expect(text.split(' | caused by ')).toHaveLength(5);
    expect(text).toContain('level 5');
    expect(text).not.toContain('level 6');
  });

  it('survives a cause cycle', () => {
    const a = new Error('a');
    const b = new Error('b', { cause: a });
    Object.assign(a, { cause: b });
    expect(sanitizeError(b)).toBe(
      'Error: b | caused by Error: a | caused by Error: b | caused by Error: a | caused by Error: b',
    );
  });

  it('names a subclass that does not set name by its class', () => {
    class BrokerClosed extends Error {}
    expect(sanitizeError(new BrokerClosed('gone'))).toBe('BrokerClosed: gone');
  });

  it('appends the detail as the body and sanitizes it', () => {
    const error = new QueueBoxError('publish_failed', 'HTTP 401: Unauthorized', {
      detail: '{"error":"bad","token":"abc123"}',
    });
    expect(sanitizeError(error)).toBe(
      'QueueBoxError: HTTP 401: Unauthorized | body: {"error":"bad","token=[REDACTED]}',
    );
  });

  it('takes the detail from a cause when the top error has none', () => {
    const http = Object.assign(new Error('HTTP 500'), { detail: 'oops' });
    const top = new Error('Publish failed', { cause: http });
    expect(sanitizeError(top)).toBe(
      'Error: Publish failed | caused by Error: HTTP 500 | body: oops',
    );
  });

  it('sanitizes messages of every level', () => {
    const root = new Error('connect amqp://u:hunter2@rabbit:5672 failed');
    const top = new Error('startup failed', { cause: root });
    expect(sanitizeError(top)).not.toContain('hunter2');
  });

  it('renders non-errors through the shared normaliser', () => {
    expect(sanitizeError('boom')).toBe('Error: boom');
    expect(sanitizeError({ code: 42 })).toBe('Error: {"code":42}');
    expect(sanitizeError(new Error(''))).toBe('Error');
  });

  it('truncates the whole text', () => {
    const text = sanitizeError(new Error('x'.repeat(3000), { cause: new Error('y') }));
    expect(text).toHaveLength(SANITIZED_MAX_LENGTH);
    expect(text.endsWith(TRUNCATION_MARKER)).toBe(true);
  });
});
