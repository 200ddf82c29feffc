import { describe, expect, it } from 'vitest';
import { attributeValue } from './attribute-value.js';

describe('attributeValue', () => {
  it.each([
    ['evt_1', 'evt_1'],
    ['  evt_1 \n', 'evt_1'],
    [42, '42'],
    [515725.0, '515725'],
    [1.5, '1.5'],
    [-3, '-3'],
    [0, '0'],
    [-0, '0'],
    [true, 'true'],
    [false, 'false'],
  ] as const)('%j → %j', (value, text) => {
    expect(attributeValue(value)).toBe(text);
  });

  it.each([[null], [undefined], [''], ['   '], [{ id: 1 }], [[1, 2]], [[]], [{}]])(
    '%j → no value',
    (value) => {
      expect(attributeValue(value)).toBeNull();
    },
  );

  it('reads a whole number written with a decimal point in the body as the number without it', () => {
    const body = JSON.parse('{"id":515725.0,"n":1.50}') as { id: number; n: number };
    expect(attributeValue(body.id)).toBe('515725');
    expect(attributeValue(body.n)).toBe('1.5');
  });
});
