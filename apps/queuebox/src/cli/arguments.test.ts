import { describe, expect, it } from 'vitest';
import { parseArguments, USAGE } from './arguments.js';

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

  it('answers --help, -h and --version, alone or after a command', () => {
    expect(parseArguments(['--help'])).toEqual({ kind: 'help', text: USAGE });
    expect(parseArguments(['-h'])).toEqual({ kind: 'help', text: USAGE });
    expect(parseArguments(['--version'])).toEqual({ kind: 'version' });
    for (const command of ['migrate', 'config', 'healthcheck', 'dev']) {
      const help = parseArguments([command, '--help']);
      expect(help.kind).toBe('help');
      expect(help.kind === 'help' && help.text).toContain(`Usage: queuebox ${command}`);
      expect(parseArguments([command, '-h'])).toEqual(help);
    }
  });

  it('names every command in the usage', () => {
    for (const word of [
      'migrate',
      'config check',
      'config print',
      'healthcheck',
      'dev',
      '--help',
      '--version',
    ])
      expect(USAGE).toContain(`  ${word}`);
  });

  it("names both places dev keeps its data: the checkout's and, as root, /var/tmp", () => {
    expect(USAGE).toContain('.queuebox/postgres');
    expect(USAGE).toContain('/var/tmp/queuebox-dev/data/<path>-<hash>/postgres');
  });

  it('checks and prints the configuration, with or without --config', () => {
    expect(parseArguments(['config', 'check'])).toEqual({ kind: 'config-check', configFile: null });
    expect(parseArguments(['config', 'print', '--config', 'q.yml'])).toEqual({
      kind: 'config-print',
      configFile: 'q.yml',
    });
    for (const args of [
      ['config'],
      ['config', 'show'],
      ['config', 'check', '--config'],
      ['config', 'check', '--data-dir', 'x'],
      ['config', 'check', 'extra'],
    ]) {
      expect(parseArguments(args).kind).toBe('usage');
    }
  });

  it('asks for health with an optional configuration and timeout', () => {
    expect(parseArguments(['healthcheck'])).toEqual({
      kind: 'healthcheck',
      configFile: null,
      timeoutMs: null,
    });
    expect(parseArguments(['healthcheck', '--timeout-ms', '900', '--config', 'q.yml'])).toEqual({
      kind: 'healthcheck',
      configFile: 'q.yml',
      timeoutMs: 900,
    });
    expect(parseArguments(['healthcheck', '--timeout-ms', '0']).kind).toBe('usage');
    expect(parseArguments(['healthcheck', '--timeout-ms', '1.5']).kind).toBe('usage');
  });

  it('answers anything else with the usage', () => {
    for (const args of [
      ['serve'],
      ['help'],
      ['--verbose'],
      ['--help', 'me'],
      ['migrate', '--baseline'],
      ['migrate', '--force'],
      ['migrate', '--baseline', '6', 'x'],
    ]) {
      expect(parseArguments(args).kind).toBe('usage');
    }
  });
});
