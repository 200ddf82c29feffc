import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, type LoadConfigOptions } from '../test/brokers.js';

const DB_YAML =
  'database:\n  url: jdbc:postgresql://localhost:5432/queuebox\n  username: queuebox\n  password: secret\n';
const DEMO = `${DB_YAML}server:\n  httpPort: 1111\n`;
const DB_ENV = {
  QUEUEBOX_DATABASE_URL: 'jdbc:postgresql://localhost:5432/queuebox',
  QUEUEBOX_DATABASE_USERNAME: 'queuebox',
  QUEUEBOX_DATABASE_PASSWORD: 'secret',
};

/** A file system of the given files; every other path does not exist. */
const files = (entries: Record<string, string>) => (path: string) => entries[path];

function thrown(options: LoadConfigOptions): ConfigError {
  try {
    loadConfig(options);
  } catch (error: unknown) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('the configuration loaded');
}

describe('sources and precedence (spec §12.1)', () => {
  it('reads /etc/queuebox/queuebox.yml by default and QUEUEBOX_CONFIG_FILE when set', () => {
    const fs = files({
      '/etc/queuebox/queuebox.yml': `${DB_YAML}server: {httpPort: 2222}`,
      '/x.yml': `${DB_YAML}server: {httpPort: 3333}`,
    });
    expect(loadConfig({ env: {}, readFile: fs }).server.httpPort).toBe(2222);
    expect(
      loadConfig({ env: { QUEUEBOX_CONFIG_FILE: '/x.yml' }, readFile: fs }).server.httpPort,
    ).toBe(3333);
    expect(loadConfig({ env: {}, defaultConfigFile: '/x.yml', readFile: fs }).server.httpPort).toBe(
      3333,
    );
  });

  it('lets variables win over the file', () => {
    const fs = files({ '/etc/queuebox/queuebox.yml': `${DB_YAML}server: {httpPort: 2222}` });
    expect(
      loadConfig({ env: { QUEUEBOX_SERVER_HTTPPORT: '4444' }, readFile: fs }).server.httpPort,
    ).toBe(4444);
  });

  it('reads the demo only when there is no file, no configuration variable and no QUEUEBOX_CONFIG_FILE', () => {
    const none = files({});
    expect(loadConfig({ env: {}, demoConfigYaml: DEMO, readFile: none }).server.httpPort).toBe(
      1111,
    );
    // Ignored variables do not count as configuration.
    expect(
      loadConfig({
        env: { QUEUEBOX_PORT: 'tcp://1.2.3.4:80', PATH: '/bin' },
        demoConfigYaml: DEMO,
        readFile: none,
      }).server.httpPort,
    ).toBe(1111);
    // A configuration variable: the demo is not read, the variables alone configure.
    expect(loadConfig({ env: DB_ENV, demoConfigYaml: DEMO, readFile: none }).server.httpPort).toBe(
      8080,
    );
    // An existing file replaces the demo entirely.
    const file = files({ '/etc/queuebox/queuebox.yml': DB_YAML });
    expect(loadConfig({ env: {}, demoConfigYaml: DEMO, readFile: file }).server.httpPort).toBe(
      8080,
    );
    // QUEUEBOX_CONFIG_FILE set (even to a missing file): no demo.
    expect(
      thrown({
        env: { QUEUEBOX_CONFIG_FILE: '/missing.yml' },
        demoConfigYaml: DEMO,
        readFile: none,
      }).message,
    ).toMatch(/^No configuration was found/);
  });

  it('names the three sources when there is no configuration at all', () => {
    const error = thrown({ env: {}, readFile: files({}) });
    expect(error.code).toBe('config_invalid');
    expect(error.message).toBe(
      'No configuration was found. QueueBox read three sources and every one was empty. ' +
        '1. The QUEUEBOX_* environment variables, for example QUEUEBOX_DATABASE_URL, QUEUEBOX_DATABASE_USERNAME and QUEUEBOX_DATABASE_PASSWORD. ' +
        '2. The file /etc/queuebox/queuebox.yml, which QUEUEBOX_CONFIG_FILE can rename. ' +
        '3. The packaged demo configuration, which QueueBox reads only when QUEUEBOX_CONFIG_FILE is not set. ' +
        'Set the environment variables, or write the file.',
    );
    // An empty file is a source with nothing in it.
    expect(
      thrown({ env: {}, readFile: files({ '/etc/queuebox/queuebox.yml': '# nothing\n' }) }).message,
    ).toMatch(/^No configuration was found/);
  });

  it('reports a file that exists but cannot be read', () => {
    const error = thrown({
      env: {},
      readFile: () => {
        throw Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' });
      },
    });
    expect(error.problems).toEqual([
      '/etc/queuebox/queuebox.yml: cannot read the configuration file (EACCES)',
    ]);
  });

  it('reports YAML syntax errors by position without quoting the text', () => {
    const error = thrown({
      env: {},
      readFile: files({ '/etc/queuebox/queuebox.yml': 'database:\n  password: "hunter2\n' }),
    });
    expect(error.problems).toHaveLength(1);
    expect(error.problems[0]).toMatch(
      /^\/etc\/queuebox\/queuebox\.yml: not valid YAML: .* \(line \d+, column \d+\)$/,
    );
    expect(error.message).not.toContain('hunter2');
  });

  it('reads the default file from disk when no reader is given', () => {
    const error = thrown({ env: { QUEUEBOX_CONFIG_FILE: '/nonexistent/queuebox.yml' } });
    expect(error.message).toMatch(/^No configuration was found/);
  });
});

describe('placeholders (spec §12.1)', () => {
  const load = (yaml: string, env: Record<string, string>) =>
    loadConfig({
      env: { QUEUEBOX_CONFIG_FILE: '/c.yml', ...env },
      readFile: files({ '/c.yml': yaml }),
    });

  it('reads ${NAME} and ${NAME:-fallback} from the environment', () => {
    const yaml =
      'database:\n  url: "jdbc:postgresql://${DB_HOST:-localhost}:5432/${DB_NAME}"\n  username: ${DB_USER}\n  password: ${DB_PASSWORD:-}\n';
    const config = load(yaml, { DB_NAME: 'orders', DB_USER: 'app' });
    expect(config.database.url).toBe('jdbc:postgresql://localhost:5432/orders');
    expect(config.database.username).toBe('app');
    expect(config.database.password.reveal()).toBe('');
    expect(
      load(yaml, { DB_HOST: 'db', DB_NAME: 'o', DB_USER: 'u', DB_PASSWORD: 'p' }).database
        .connection.hosts,
    ).toEqual([{ host: 'db', port: 5432 }]);
  });

  it('fails the load for a missing required placeholder, naming the variable', () => {
    expect(() => load(`${DB_YAML}outbox:\n  maxAttempts: \${MAX_ATTEMPTS}\n`, {})).toThrow(
      'outbox.maxAttempts: the placeholder ${MAX_ATTEMPTS} names an environment variable that is not set; set MAX_ATTEMPTS, or give a fallback as ${MAX_ATTEMPTS:-value}',
    );
  });

  it('does not report a required key twice when its placeholder is missing', () => {
    const error = thrown({
      env: { QUEUEBOX_CONFIG_FILE: '/c.yml' },
      readFile: files({ '/c.yml': 'database:\n  url: ${DB_URL}\n  username: u\n  password: p\n' }),
    });
    expect(error.problems).toEqual([
      'database.url: the placeholder ${DB_URL} names an environment variable that is not set; set DB_URL, or give a fallback as ${DB_URL:-value}',
    ]);
  });
});

describe('file: secrets (spec §12.1, §16.3)', () => {
  it('reads a secret from a file once and drops trailing newlines', () => {
    let reads = 0;
    const config = loadConfig({
      env: {
        QUEUEBOX_DATABASE_URL: 'jdbc:postgresql://localhost:5432/queuebox',
        QUEUEBOX_DATABASE_USERNAME: 'queuebox',
        QUEUEBOX_DATABASE_PASSWORD: 'file:/run/secrets/db',
        QUEUEBOX_OUTBOX_CAPTURE_CONNECTION_PASSWORD: 'file:/run/secrets/db',
      },
      readFile: (path) => {
        if (path !== '/run/secrets/db') return undefined;
        reads += 1;
        return 's3cret\r\n\n';
      },
    });
    expect(config.database.password.reveal()).toBe('s3cret');
    expect(config.outbox.capture.connection.password?.reveal()).toBe('s3cret');
    expect(reads).toBe(1);
  });

  it('names only the path of an unreadable secret file', () => {
    const error = thrown({
      env: { ...DB_ENV, QUEUEBOX_DATABASE_PASSWORD: 'file:/run/secrets/missing' },
      readFile: files({}),
    });
    expect(error.problems).toEqual([
      'database.password: cannot read the secret file /run/secrets/missing (set by QUEUEBOX_DATABASE_PASSWORD)',
    ]);
  });

  it('keeps file: literal in a field that is not a secret', () => {
    const config = loadConfig({
      env: { ...DB_ENV, QUEUEBOX_INBOX_BASEPATH: 'file:/x' },
      readFile: files({}),
    });
    expect(config.inbox.basePath).toBe('file:/x');
  });

  it('prints secrets masked', () => {
    const config = loadConfig({ env: DB_ENV, readFile: files({}) });
    expect(String(config.database.password)).toBe('Secret(***)');
    expect(JSON.stringify(config)).not.toContain('"secret"');
  });
});
