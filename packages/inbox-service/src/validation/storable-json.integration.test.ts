import { createFreshDatabase, requireService, type FreshDatabase } from '@queuebox/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkJsonText, MAX_JSON_DEPTH } from './json-text-check.js';

const pg = await requireService('postgres', 'inbox-service: storable JSON against PostgreSQL');

/**
 * The storability checks against PostgreSQL itself: for every document of a corpus built around
 * the edges (numeric's scale and weight, escapes, surrogates), the check accepts exactly what
 * `jsonb` accepts. A check that refused more would turn valid webhooks away; one that refused
 * less would answer 500 (a store error), which a sender retries for ever.
 */
describe.skipIf(!pg.available)('checkJsonText agrees with jsonb', () => {
  let db: FreshDatabase;

  beforeAll(async () => {
    db = await createFreshDatabase(pg.available ? pg.url : '');
    await db.sql.unsafe(`CREATE FUNCTION takes_jsonb(t text) RETURNS boolean LANGUAGE plpgsql AS $$
      BEGIN PERFORM t::jsonb; RETURN true; EXCEPTION WHEN others THEN RETURN false; END $$`);
  });
  afterAll(async () => {
    await db?.drop();
  });

  const jsonbTakes = async (documents: readonly string[]): Promise<boolean[]> => {
    const rows = await db.sql<{ ok: boolean }[]>`
      SELECT takes_jsonb(d) AS ok FROM unnest(${documents as string[]}::text[])
        WITH ORDINALITY AS x(d, n) ORDER BY n`;
    return rows.map((row) => row.ok);
  };

  const expectAgreement = async (documents: readonly string[]) => {
    for (const document of documents) JSON.parse(document); // the corpus is JSON throughout
    const taken = await jsonbTakes(documents);
    // Both answers occur, so agreement is not agreement on one side only.
    expect(new Set(taken)).toEqual(new Set([true, false]));
    const disagreements = documents
      .map((document, i) => ({ document: document.slice(0, 80), jsonb: taken[i] }))
      .filter(({ jsonb }, i) => (checkJsonText(documents[i]!) === null) !== jsonb);
    expect(disagreements).toEqual([]);
  };

  it('on numbers at the edges of numeric and at random around them', async () => {
    const tokens = [
      '0',
      '-0',
      '1e400',
      '-1.50',
      '1e131071',
      '1e131072',
      '10e131071',
      '0.1e131072',
      '0.1e131073',
      '1e-16383',
      '1e-16384',
      '1.5e-16382',
      '1.5e-16383',
      '100e-16385',
      '123456789e-16375',
      '0e99999999',
      '0e-99999999',
      '0.0000e-20000',
      '0e-16383',
      '0e-16384',
      '0.0e-16383',
      '1e2147483647',
      '1e-2147483647',
      '1e1073741822',
      '1e1073741823',
      '0e1073741823',
      '1E+5',
      '12345678901234567890',
      `1${'0'.repeat(131_071)}`,
      `1${'0'.repeat(131_072)}`,
      `0.${'0'.repeat(16_382)}1`,
      `0.${'0'.repeat(16_383)}1`,
      `${'0'.repeat(20)}`.replace(/^0+/, '0'),
      `9${'9'.repeat(131_071)}.5`,
      `0.${'5'.repeat(16_383)}`,
      `0.${'5'.repeat(16_384)}`,
    ];
    // Deterministic pseudo-random tokens near the two bounds.
    let seed = 42;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    for (let i = 0; i < 150; i += 1) {
      const intDigits = random(4) === 0 ? '0' : `${1 + random(9)}${'7'.repeat(random(6))}`;
      const fraction = random(2) === 0 ? '' : `.${'0'.repeat(random(4))}${random(10)}`;
      const exponent = random(2) === 0 ? 131_066 + random(10) : -(16_378 + random(10));
      tokens.push(`${random(3) === 0 ? '-' : ''}${intDigits}${fraction}e${exponent}`);
    }
    await expectAgreement(tokens.map((token) => `{"n": ${token}}`));
  });

  it('on escapes, surrogates, names and nesting', async () => {
    await expectAgreement([
      '{"a": "\\u0000"}',
      '{"\\u0000": 1}',
      '["\\\\u0000"]',
      '["\\\\\\u0000"]',
      '["\\u0001\\u001f\\u007f"]',
      '["\\ud800"]',
      '["\\udc00"]',
      '["\\ud800\\udc00"]',
      '["\\uD83D\\uDE00"]',
      '["\\ud800\\ud800"]',
      '["\\ud800x"]',
      '["\\udbff\\udfff"]',
      '{"\\ud800": 1}',
      '["😀", "é", "\\u00e9"]',
      `${'['.repeat(MAX_JSON_DEPTH)}${']'.repeat(MAX_JSON_DEPTH)}`,
    ]);
  });
});
