import { describe, expect, it } from 'vitest';
import { ConfigError } from '../test/brokers.js';
import { loadYaml, refusals } from '../test/load.js';
import type { AppConfig } from '@queuebox/core';

/*
 * How the configuration file's YAML is read, so a file QueueBox 0.8.1 read keeps its meaning:
 * plain scalars stay text (no YAML 1.1 or 1.2 booleans, octals or numbers), `~`/`null`/empty are
 * unset, `<<` merges, and `!!bool`/`!!int`/`!!float` act only when written.
 */

const URL = 'database:\n  url: jdbc:postgresql://localhost:5432/queuebox\n  username: queuebox\n';
const DATABASE = `${URL}  password: p\n`;

/** The database is written in the file here, so no variable but the file's name is set. */
const load = (yaml: string): AppConfig => loadYaml(yaml, { QUEUEBOX_CONFIG_FILE: '/cfg.yml' });
const problems = (yaml: string): readonly string[] => refusals(() => load(yaml));

describe('reading the YAML file', () => {
  it('keeps plain scalars as written: leading zeros, octal and hex forms, yes and on', () => {
    for (const written of ['0123', '0o17', '0x1F', '1_000', '1:30', 'yes', 'on', 'NO', '.inf']) {
      const config = load(`${URL}  password: ${written}\n`);
      expect(config.database.password.reveal()).toBe(written);
    }
  });

  it('refuses YAML 1.1 booleans for a true/false setting rather than reading them as true', () => {
    for (const written of ['yes', 'no', 'on', 'off', 'y']) {
      expect(problems(`${DATABASE}  migrate: ${written}\n`)).toEqual([
        `database.migrate: '${written}' is not true or false`,
      ]);
    }
    expect(load(`${DATABASE}  migrate: False\n`).database.migrate).toBe(false);
  });

  it('reads an explicit !!int or !!bool with the YAML 1.2 core forms', () => {
    expect(load(`${DATABASE}  poolSize: !!int 0x1F\n`).database.poolSize).toBe(31);
    expect(load(`${DATABASE}  poolSize: !!int 0o17\n`).database.poolSize).toBe(15);
    expect(load(`${DATABASE}  poolSize: !!int 012\n`).database.poolSize).toBe(12);
    expect(load(`${DATABASE}  migrate: !!bool false\n`).database.migrate).toBe(false);
    const [bool] = problems(`${DATABASE}  migrate: !!bool yes\n`);
    expect(bool).toMatch(/^\/cfg\.yml: not valid YAML: .*bool.* \(line 5, column \d+\)$/);
  });

  it('treats ~, null and an empty value as unset, so the default applies', () => {
    for (const written of ['~', 'null', 'NULL', '']) {
      expect(load(`${DATABASE}  poolSize: ${written}\n`).database.poolSize).toBe(10);
    }
    expect(load(`${URL}  password: "null"\n`).database.password.reveal()).toBe('null');
  });

  it('merges << keys, the keys written beside them winning', () => {
    const config = load(
      `${DATABASE}destinations:\n  d: {type: http, baseUrl: "https://x"}\nroutes:\n` +
        `  - &first {topicPattern: "a.*", destination: d, routingKeyMissingFieldDefault: z}\n` +
        `  - <<: *first\n    topicPattern: "b.*"\n`,
    );
    expect(
      config.routes.map((r) => [r.topicPattern, r.destination, r.routingKeyMissingFieldDefault]),
    ).toEqual([
      ['a.*', 'd', 'z'],
      ['b.*', 'd', 'z'],
    ]);
  });

  it('reads a file that is empty or holds only comments as setting nothing', () => {
    for (const text of ['', '# nothing yet\n', '---\n']) {
      const error = (() => {
        try {
          load(text);
        } catch (caught: unknown) {
          return caught;
        }
        return undefined;
      })();
      // Nothing set means no database, the one required section; never a YAML error.
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).problems.join('\n')).not.toMatch(/not valid YAML/);
    }
  });

  it('refuses a file of several documents, by name, with no position', () => {
    expect(problems(`${DATABASE}---\nserver:\n  httpPort: 1\n`)).toEqual([
      '/cfg.yml: not valid YAML: the file holds 2 documents (separated by ---); QueueBox reads one',
    ]);
  });

  it('refuses a complex key as YAML rather than reading it as text', () => {
    const [problem] = problems(`${DATABASE}? [a, b]\n: 1\n`);
    expect(problem).toMatch(/^\/cfg\.yml: not valid YAML: .*complex keys/);
  });
});
