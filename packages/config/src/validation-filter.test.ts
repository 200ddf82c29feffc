import { describe, expect, it } from 'vitest';
import { loadYaml, refusals } from '../test/load.js';

const YAML = `
database:
  url: jdbc:postgresql://localhost:5432/queuebox
  username: queuebox
  password: secret
sources:
  s:
    path: /s
    idempotencyKeyPath: $.id
    eventTypePath: $.type
    filter:
      require:
        - ~
        - header: x-kind
          equals: a
`;

const problems = (yaml: string): readonly string[] =>
  refusals(() => loadYaml(yaml, { QUEUEBOX_CONFIG_FILE: '/cfg.yml' }));

describe('filter rules (spec §7.3)', () => {
  it('reports an empty filter rule as a problem instead of failing the load', () => {
    expect(problems(YAML)).toEqual([
      'sources.s.filter.require[0]: must be a section of keys, not a single value',
      'sources.s.filter.require[0]: must set exactly one of equals, in, matches or exists, but it sets none',
    ]);
  });
});
