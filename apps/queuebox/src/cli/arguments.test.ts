import { describe, expect, it } from 'vitest';
import { parseArguments } from './arguments.js';

describe('command line', () => {
  it('serves without arguments', () => {
    expect(parseArguments([])).toEqual({ kind: 'serve' });
  });

  it('migrates, with or without a baseline', () => {
    expect(parseArguments(['migrate'])).toEqual({ kind: 'migrate', baseline: null });
    expect(parseArguments(['migrate', '--baseline', '6'])).toEqual({ kind: 'migrate', baseline: '6' });
  });

  it('answers anything else with the usage', () => {
    for (const args of [['serve'], ['migrate', '--baseline'], ['migrate', '--force'], ['--help'], ['migrate', '--baseline', '6', 'x']]) {
      expect(parseArguments(args).kind).toBe('usage');
    }
  });
});
