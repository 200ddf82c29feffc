/**
 * The W3C trace context headers (https://www.w3.org/TR/trace-context/). While tracing is on they
 * are headers QueueBox owns, like those of `owned-headers.ts`: a message's own copy is the
 * parent of QueueBox's span, and what travels on (into a stored row, onto the wire) is QueueBox's
 * span, once. When tracing is off they are ordinary headers and go through unchanged.
 */
import type { HeaderEntry } from './header-precedence.js';
import type { Headers } from './model.js';

export const TraceHeader = {
  parent: 'traceparent',
  state: 'tracestate',
} as const;

/** The trace headers, lower-case, as header maps key them. */
export const TRACE_HEADERS: readonly string[] = Object.freeze(Object.values(TraceHeader));

/** Whether a header name (any letter case) is a W3C trace context header. */
export function isTraceHeader(name: string): boolean {
  return TRACE_HEADERS.includes(name.toLowerCase());
}

/**
 * The headers with every trace header (any letter case) replaced by `context`, in a new object;
 * `headers` is left as it is.
 */
export function withTraceContext(headers: Headers, context: readonly HeaderEntry[]): Headers {
  const entries: [string, string][] = Object.entries(headers).filter(
    ([name]) => !isTraceHeader(name),
  );
  for (const [name, value] of context) entries.push([name, value]);
  // fromEntries defines own properties, so a `__proto__` header stays a plain key.
  return Object.fromEntries(entries);
}

/** A header's value by case-insensitive name from a message's headers, or undefined. */
export function traceHeaderValue(headers: Headers | null, name: string): string | undefined {
  if (headers === null || typeof headers !== 'object') return undefined;
  const exact = Object.hasOwn(headers, name) ? headers[name] : undefined;
  if (typeof exact === 'string') return exact;
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === name && typeof value === 'string') return value;
  }
  return undefined;
}
