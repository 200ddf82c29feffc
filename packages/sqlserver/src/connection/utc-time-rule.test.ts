import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { databaseConfig } from '../../test/support.js';
import { connectionConfig } from './connection-options.js';

/**
 * The time rule (spec §3.7, docs/decisions.md, issue 19): every application-clock time is bound
 * as UTC and every DATETIME2 is read as UTC, whatever the host's zone; the reference's JVM driver
 * used the writing host's local wall clock instead. The rule lives in tedious's `useUTC`, which
 * connectionConfig sets; this runs tedious's own DATETIME2 encoder and decoder in processes with
 * different TZ settings, so a host zone leaking in would change the bytes or the instant.
 */
const PACKAGE_DIR = fileURLToPath(new URL('../..', import.meta.url));

const SCRIPT = `
const { TYPES } = require('tedious');
const { readValue } = require('tedious/lib/value-parser.js');
const useUTC = process.argv[1] === 'true';
const at = new Date('2024-03-01T12:00:00.123Z');
const bytes = Buffer.concat([...TYPES.DateTime2.generateParameterData({ value: at, scale: 7 }, { useUTC })]);
// What the server holds is wall-clock components; read back as the store reads a row.
const stored = Buffer.concat([Buffer.from([bytes.length]), bytes]);
const read = readValue(stored, 0, { type: TYPES.DateTime2, scale: 7 }, { useUTC }).value;
process.stdout.write(JSON.stringify({ bytes: bytes.toString('hex'), read: read.toISOString() }));
`;

function inZone(tz: string, useUTC: boolean): { bytes: string; read: string } {
  const out = execFileSync(process.execPath, ['-e', SCRIPT, String(useUTC)], {
    cwd: PACKAGE_DIR,
    env: { ...process.env, TZ: tz },
    encoding: 'utf8',
  });
  return JSON.parse(out) as { bytes: string; read: string };
}

const ZONES = ['UTC', 'Asia/Kolkata', 'America/Los_Angeles'];

describe('the time rule: application-clock times as UTC, never the host wall clock', () => {
  const useUTC = connectionConfig(databaseConfig()).options?.useUTC === true;

  it('binds the same DATETIME2 bytes, and reads the same instant, in every host zone', () => {
    expect(useUTC).toBe(true);
    const results = ZONES.map((tz) => inZone(tz, useUTC));
    for (const result of results) expect(result).toEqual(results[0]);
    // The stored wall clock is the UTC one: 12:00:00.123 on 2024-03-01.
    expect(results[0]!.read).toBe('2024-03-01T12:00:00.123Z');
  });

  it('would differ by zone with the reference driver behaviour (local wall clock)', () => {
    const [utc, kolkata] = ZONES.slice(0, 2).map((tz) => inZone(tz, false));
    expect(kolkata!.bytes).not.toBe(utc!.bytes);
  });

  it('reads a row a reference instance wrote at UTC+5:30 shifted by that offset (the limitation)', () => {
    // A JVM in Asia/Kolkata wrote 17:30:00.123 wall clock for the instant 12:00:00.123Z.
    const written = inZone('Asia/Kolkata', false);
    const utcWallClock = inZone('UTC', true);
    expect(written.bytes).not.toBe(utcWallClock.bytes);
    // QueueBox reads those components as UTC: 17:30Z, 5 h 30 min after the real instant, which
    // is why docs/decisions.md tells operators to run the reference in UTC or convert the rows.
    const script = `
const { TYPES } = require('tedious');
const { readValue } = require('tedious/lib/value-parser.js');
const bytes = Buffer.from(process.argv[1], 'hex');
const stored = Buffer.concat([Buffer.from([bytes.length]), bytes]);
process.stdout.write(readValue(stored, 0, { type: TYPES.DateTime2, scale: 7 }, { useUTC: true }).value.toISOString());`;
    const read = execFileSync(process.execPath, ['-e', script, written.bytes], {
      cwd: PACKAGE_DIR,
      env: { ...process.env, TZ: 'UTC' },
      encoding: 'utf8',
    });
    expect(read).toBe('2024-03-01T17:30:00.123Z');
  });
});
