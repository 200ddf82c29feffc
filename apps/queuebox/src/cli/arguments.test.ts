import { describe, expect, it } from 'vitest';
import { parseArguments } from './arguments.js';

describe('command line', () => {
  it('serves without arguments', () => {
    expect(parseArguments([])).toEqual({ kind: 'serve' });
  });

  it('migrates, with or without a baseline', () => {
    expect(parseArguments(['migrate'])).toEqual({ kind: 'migrate', baseline: null });
    expect(parseArguments(['migrate', '--baseline', '6'])).toEqual({
      kind: 'migrate',
      baseline: '6',
    });
  });

  it('runs dev with its options', () => {
    expect(parseArguments(['dev'])).toEqual({
      kind: 'dev',
      options: { configFile: null, dataDir: null, postgresPort: null },
    });
    expect(
      parseArguments([
        'dev',
        '--config',
        'my.yml',
        '--data-dir',
        '/tmp/pg',
        '--postgres-port',
        '55432',
      ]),
    ).toEqual({
      kind: 'dev',
      options: { configFile: 'my.yml', dataDir: '/tmp/pg', postgresPort: 55432 },
    });
  });

  it('answers bad dev options with the usage', () => {
    for (const args of [
      ['dev', '--config'],
      ['dev', '--config', '--data-dir', 'x'],
      ['dev', '--port', '1'],
      ['dev', 'x'],
      ['dev', '--postgres-port', '0'],
      ['dev', '--config', 'a', '--config', 'b'],
    ]) {
      expect(parseArguments(args).kind).toBe('usage');
    }
  });

  it('answers anything else with the usage', () => {
    for (const args of [
      ['serve'],
      ['migrate', '--baseline'],
      ['migrate', '--force'],
      ['--help'],
      ['migrate', '--baseline', '6', 'x'],
    ]) {
      expect(parseArguments(args).kind).toBe('usage');
    }
  });
});
