import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { databaseConfig } from '../../test/support.js';
import { connectionConfig } from './connection-options.js';

/**
 * The time rule (spec §3.7, docs/decisions.md, issue 19): every application-clock time is bound
 * as UTC and every DATETIME2 is read as UTC, whatever the host's zone; the reference's JVM driver
 * used the writing host's local wall clock instead. The rule lives in tedious's `useUTC`, which
 * connectionConfig sets. This binds a DATETIME2 the way a statement does (sessionOf: a Request
 * parameter of scale 7), resolved and written by tedious with the options a Connection built
 * from connectionConfig holds, and decodes the bytes as a row is read, in processes with
 * different TZ settings, so a host zone leaking in would change the bytes or the instant.
 */
const PACKAGE_DIR = fileURLToPath(new URL('../..', import.meta.url));

// tedious's internal modules: the parameter writer (`writeValue` into a tracking buffer, which
// the RPC payload calls) and the row value reader. No SQL Server is needed: the Connection is
// never connected, only built, so its options are the ones tedious would send with.
const SCRIPT = `
const { Connection, Request, TYPES } = require('tedious');
const WritableTrackingBuffer = require('tedious/lib/tracking-buffer/writable-tracking-buffer.js');
const { readValue } = require('tedious/lib/value-parser.js');
const options = new Connection(JSON.parse(process.argv[1])).config.options;
const request = new Request('SELECT @at', () => {});
request.addParameter('at', TYPES.DateTime2, new Date('2024-03-01T12:00:00.123Z'), { scale: 7 });
request.validateParameters(undefined, options);
const [parameter] = request.resolvedParameters;
const buffer = new WritableTrackingBuffer();
parameter.type.writeValue(buffer, parameter.data, options);
// The value as sent: a length byte, then the wall-clock time of day and the days since year 1.
const bytes = Buffer.from(buffer.data);
// What the server holds is those components; read back as the store reads a row.
const read = readValue(bytes, 0, { type: TYPES.DateTime2, scale: 7 }, options).value;
process.stdout.write(JSON.stringify({ useUTC: options.useUTC, bytes: bytes.toString('hex'), read: read.toISOString() }));
`;

interface Encoded {
  readonly useUTC: boolean;
  readonly bytes: string;
  readonly read: string;
}

function inZone(tz: string, config: object): Encoded {
  const out = execFileSync(process.execPath, ['-e', SCRIPT, JSON.stringify(config)], {
    cwd: PACKAGE_DIR,
    env: { ...process.env, TZ: tz },
    encoding: 'utf8',
  });
  return JSON.parse(out) as Encoded;
}

const ZONES = ['UTC', 'Asia/Kolkata', 'America/Los_Angeles'];

/** QueueBox's own connection settings, as the pool builds them. */
const config = connectionConfig(databaseConfig());
/** The same settings with the reference driver's behaviour: the host's local wall clock. */
const localWallClock = { ...config, options: { ...config.options, useUTC: false } };

describe('the time rule: application-clock times as UTC, never the host wall clock', () => {
  it('binds the same DATETIME2 bytes, and reads the same instant, in every host zone', () => {
    const results = ZONES.map((tz) => inZone(tz, config));
    expect(results[0]!.useUTC).toBe(true);
    for (const result of results) expect(result).toEqual(results[0]);
    // 12:00:00.123 on 2024-03-01 as sent: length 8, then 432001230000 ticks of 100 ns past midnight
    // in 5 bytes and 738945 days since 0001-01-01 in 3 bytes, all little-endian.
    expect(results[0]!.bytes).toBe('08b0a447956481460b');
    expect(results[0]!.read).toBe('2024-03-01T12:00:00.123Z');
  });

  it('would differ by zone with the reference driver behaviour (local wall clock)', () => {
    const [utc, kolkata] = ZONES.slice(0, 2).map((tz) => inZone(tz, localWallClock));
    expect(kolkata!.bytes).not.toBe(utc!.bytes);
  });

  it('reads a row a reference instance wrote at UTC+5:30 shifted by that offset (the limitation)', () => {
    // A JVM in Asia/Kolkata wrote 17:30:00.123 wall clock for the instant 12:00:00.123Z.
    const written = inZone('Asia/Kolkata', localWallClock);
    const utcWallClock = inZone('UTC', config);
    expect(written.bytes).not.toBe(utcWallClock.bytes);
    // QueueBox reads those components as UTC: 17:30Z, 5 h 30 min after the real instant, which
    // is why docs/decisions.md tells operators to run the reference in UTC or convert the rows.
    const script = `
const { TYPES } = require('tedious');
const { readValue } = require('tedious/lib/value-parser.js');
process.stdout.write(readValue(Buffer.from(process.argv[1], 'hex'), 0, { type: TYPES.DateTime2, scale: 7 }, { useUTC: true }).value.toISOString());`;
    const read = execFileSync(process.execPath, ['-e', script, written.bytes], {
      cwd: PACKAGE_DIR,
      env: { ...process.env, TZ: 'UTC' },
      encoding: 'utf8',
    });
    expect(read).toBe('2024-03-01T17:30:00.123Z');
  });
});
