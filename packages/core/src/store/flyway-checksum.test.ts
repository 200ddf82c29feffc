import { describe, expect, it } from 'vitest';
import { crc32, flywayChecksum } from './flyway-checksum.js';

describe('crc32', () => {
  it('matches the IEEE check value', () => {
    expect(crc32(new TextEncoder().encode('123456789'))).toBe(0xcbf43926);
  });

  it('continues over chunks as over the whole', () => {
    const enc = new TextEncoder();
    expect(crc32(enc.encode('6789'), crc32(enc.encode('12345')))).toBe(0xcbf43926);
  });

  it('is 0 for no bytes', () => {
    expect(crc32(new Uint8Array())).toBe(0);
  });
});

describe('flywayChecksum', () => {
  it('is the signed CRC-32 of the lines without terminators', () => {
    // java.util.zip.CRC32 over "123456789" is 0xCBF43926; Flyway stores it as an int.
    expect(flywayChecksum('12345\n6789\n')).toBe(-873187034);
  });

  it('equals java.util.zip.CRC32 over BufferedReader lines (value computed with Java)', () => {
    expect(flywayChecksum('CREATE TABLE x (a int);\r\n-- é comment\n\nSELECT 1;\n')).toBe(
      548176510,
    );
  });

  it('does not depend on the line endings', () => {
    const lf = flywayChecksum('CREATE TABLE a (x int);\nCREATE INDEX i ON a (x);\n');
    expect(flywayChecksum('CREATE TABLE a (x int);\r\nCREATE INDEX i ON a (x);\r\n')).toBe(lf);
    expect(flywayChecksum('CREATE TABLE a (x int);\rCREATE INDEX i ON a (x);')).toBe(lf);
  });

  it('drops a byte-order mark from the first line only', () => {
    expect(flywayChecksum('\uFEFFSELECT 1;\n')).toBe(flywayChecksum('SELECT 1;\n'));
    expect(flywayChecksum('a\n\uFEFFb')).not.toBe(flywayChecksum('a\nb'));
  });

  it('encodes lines as UTF-8', () => {
    const bytes = new TextEncoder().encode('-- é');
    expect(flywayChecksum('-- é')).toBe(crc32(bytes) | 0);
  });
});
