import { describe, expect, it } from 'vitest';
import { joinUrl, requestTarget } from './url-builder.js';
import { httpErrorText, truncateUtf8 } from './error-text.js';
import { statusClassOf } from './status-class.js';

describe('joinUrl', () => {
  it.each([
    ['http://h', '/', 'http://h/'],
    ['http://h/', '/events', 'http://h/events'],
    ['http://h/api/', '/v1//events/', 'http://h/api/v1/events'],
    ['http://h/api', 'events', 'http://h/api/events'],
    ['https://h:8443/a?x=1', 'b', 'https://h:8443/a/b?x=1'],
    ['http://h', '/with space/ü', 'http://h/with%20space/%C3%BC'],
  ])('%s + %s = %s', (base, path, expected) => {
    expect(joinUrl(base, path).toString()).toBe(expected);
  });

  it('gives the pool path and query', () => {
    expect(requestTarget(joinUrl('http://h/a?x=1', '/b'))).toBe('/a/b?x=1');
  });
});

describe('HTTP error text', () => {
  it('uses the standard reason phrase and omits an empty body', () => {
    expect(httpErrorText(404, new Uint8Array(), 2048)).toBe('HTTP 404: Not Found');
    expect(httpErrorText(599, Buffer.from('x'), 2048)).toBe('HTTP 599: Unknown Status Code - x');
  });

  it('never cuts a character in half', () => {
    expect(truncateUtf8('aé', 2)).toBe('a');
    expect(truncateUtf8('aé', 3)).toBe('aé');
  });
});

describe('statusClassOf', () => {
  it.each([
    [101, '1xx'],
    [200, '2xx'],
    [308, '3xx'],
    [404, '4xx'],
    [599, '5xx'],
    [600, 'other'],
    [99, 'other'],
  ])('%i is %s', (status, statusClass) => {
    expect(statusClassOf(status)).toBe(statusClass);
  });
});
