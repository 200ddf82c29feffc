import { describe, expect, it } from 'vitest';
import {
  CDC_NOT_ENABLED_ON_DATABASE,
  CDC_NOT_ENABLED_ON_TABLE,
  preflightTarget,
} from './preflight.js';

const row = (sourceSchema: string, captureInstance = `${sourceSchema}_outbox`) => ({
  captureInstance,
  changeTable: `[cdc].[${captureInstance}_CT]`,
  sourceSchema,
});

describe('the sqlserver-cdc preflight (spec §10.1)', () => {
  it('says the database lacks CDC first, in the reference text', () => {
    expect(CDC_NOT_ENABLED_ON_DATABASE).toBe(
      'Change data capture is not enabled on this database.',
    );
    expect(() => preflightTarget(false, [row('dbo')], 'dbo')).toThrow(CDC_NOT_ENABLED_ON_DATABASE);
  });

  it('says the outbox table lacks CDC when no instance of it is in the configured schema', () => {
    expect(CDC_NOT_ENABLED_ON_TABLE).toBe(
      'Change data capture is not enabled on the outbox table.',
    );
    expect(() => preflightTarget(true, [], 'dbo')).toThrow(CDC_NOT_ENABLED_ON_TABLE);
    // An `outbox` of another schema is captured, but its changes are not the outbox's.
    expect(() => preflightTarget(true, [row('sales')], 'dbo')).toThrow(CDC_NOT_ENABLED_ON_TABLE);
  });

  it('reads the newest instance of the configured schema (names compared as SQL Server does)', () => {
    expect(
      preflightTarget(true, [row('sales'), row('DBO', 'dbo_outbox_v2'), row('dbo')], 'dbo'),
    ).toEqual({ captureInstance: 'dbo_outbox_v2', changeTable: '[cdc].[dbo_outbox_v2_CT]' });
  });
});
