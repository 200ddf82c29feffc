import { describe, expect, it } from 'vitest';
import { captureLockResource, lockDescriptionPattern } from './capture-sql.js';

describe('the capture ownership lock on SQL Server', () => {
  it("is the reference's resource name, per identity", () => {
    expect(captureLockResource('queuebox')).toBe('queuebox_capture_queuebox');
  });

  it('is found in sys.dm_tran_locks by the 32 characters the server shows, wildcards escaped', () => {
    expect(lockDescriptionPattern('queuebox_capture_queuebox')).toBe(
      '%[[]queuebox[_]capture[_]queuebox]%',
    );
    const long = lockDescriptionPattern('queuebox_capture_a_very_long_identity_name');
    expect(long).toBe('%[[]queuebox[_]capture[_]a[_]very[_]long[_]ide]%');
    expect(long.replace(/\[(.)\]/g, '$1')).toContain('queuebox_capture_a_very_long_ide]');
  });
});
