import { describe, expect, it } from 'vitest';
import { isTraceHeader, traceHeaderValue, withTraceContext } from './trace-context.js';

describe('trace context headers', () => {
  it('replaces every copy of the trace headers, in any letter case, and keeps the rest', () => {
    const headers = { TraceParent: 'a', TRACESTATE: 'b', 'x-kept': 'c' };
    expect(
      withTraceContext(headers, [
        ['traceparent', 'ours'],
        ['tracestate', 's=1'],
      ]),
    ).toEqual({ 'x-kept': 'c', traceparent: 'ours', tracestate: 's=1' });
    expect(headers).toEqual({ TraceParent: 'a', TRACESTATE: 'b', 'x-kept': 'c' });
  });

  it('keeps a __proto__ header as data', () => {
    const headers = JSON.parse('{"__proto__":"x"}') as Record<string, string>;
    const result = withTraceContext(headers, [['traceparent', 'ours']]);
    expect(Object.getPrototypeOf(result)).toBe(Object.prototype);
    expect(Object.keys(result)).toEqual(['__proto__', 'traceparent']);
  });

  it('reads a header in any letter case', () => {
    expect(traceHeaderValue({ TraceParent: 'a' }, 'traceparent')).toBe('a');
    expect(traceHeaderValue({ traceparent: 'b' }, 'traceparent')).toBe('b');
    expect(traceHeaderValue({}, 'traceparent')).toBeUndefined();
    expect(traceHeaderValue(null, 'traceparent')).toBeUndefined();
    expect(isTraceHeader('TraceState')).toBe(true);
    expect(isTraceHeader('x-trace')).toBe(false);
  });
});
