import { describe, expect, it } from 'vitest';
import { sourceRoutePath } from './route-path.js';

describe('sourceRoutePath', () => {
  it.each([
    ['/inbox', '/stripe', '/inbox/stripe'],
    ['/inbox/', '/stripe', '/inbox/stripe'],
    ['/inbox', 'stripe', '/inbox/stripe'],
    ['/hooks/v1', '/github/push', '/hooks/v1/github/push'],
    ['', '/stripe', '/stripe'],
    ['/', 'stripe/', '/stripe'],
  ])('%j + %j → %j', (base, path, route) => {
    expect(sourceRoutePath(base, path)).toBe(route);
  });
});
