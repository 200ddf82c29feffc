import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BROKERS } from '../../test/brokers.js';
import { DOCUMENT, renderConfigurationDoc, renderTable } from './render.js';

describe('docs/configuration.md', () => {
  it('is the document the schema generates (run pnpm docs:config after a schema change)', () => {
    expect(readFileSync(DOCUMENT, 'utf8')).toBe(renderConfigurationDoc(BROKERS));
  });

  it('lists every key the schema takes, with the default the schema applies', () => {
    expect(renderTable('server', BROKERS)).toContain(
      '| `server.httpPort` | int | `8080` | 1–65535 |',
    );
    expect(renderTable('destinations.kafka', BROKERS)).toContain(
      '| `keyTemplate` | string | `{{ key }}` | |',
    );
  });

  it('refuses a template that names a table the schema does not have', () => {
    expect(() => renderConfigurationDoc(BROKERS, '<!-- keys: nowhere -->')).toThrow(
      'no key table nowhere',
    );
  });
});
