import { RecordingLogger } from '@queuebox/testing';
import { describe, expect, it } from 'vitest';
import { checkInstalledDriver, warnAboutDriverFaults } from './driver-check.js';

/**
 * The check against real drivers: the workspace's postgres.js 4 and, installed beside it for
 * this test and the driver fault tests, the unpatched postgres.js 3.4.10 (`postgres-3`).
 */
describe('the postgres.js fault check', () => {
  it('finds none of the faults in the postgres.js this package imports (4.x)', () => {
    const installed = checkInstalledDriver();
    expect(installed.version).toMatch(/^4\./);
    expect(installed.faults).toEqual([]);
  });

  it('finds all four in an unpatched postgres.js 3 (3.4.10, the last 3.x)', () => {
    const installed = checkInstalledDriver('postgres-3');
    expect(installed.version).toBe('3.4.10');
    expect(installed.faults.map((fault) => fault.id)).toEqual([
      'stale-write-timer',
      'statement-after-error',
      'type-fetch-rejection',
      'queue-scan',
    ]);
  });

  it('warns once, naming the version, each effect and the fix', () => {
    const logger = new RecordingLogger();
    const installed = checkInstalledDriver('postgres-3');
    warnAboutDriverFaults(logger, installed);
    warnAboutDriverFaults(logger, installed);
    const warnings = logger.lines.filter((line) => line.level === 'warn');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.message).toContain('postgres.js 3.4.10 has 4 known fault(s)');
    expect(warnings[0]!.message).toContain('CONNECT_TIMEOUT until restart');
    expect(warnings[0]!.message).toContain('postgres@^4.2.0');
  });
});
