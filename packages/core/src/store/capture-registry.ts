import type { CaptureRegistration } from '../ports/capture.js';

/** A row of the capture registry table (V7) as both dialects select it. */
export interface CaptureRegistryRow {
  readonly identity_name: string;
  readonly state_id: string;
  readonly config_fingerprint: string;
}

/** The registration a registry row holds; null when there is no row. */
export function registrationFrom(row: CaptureRegistryRow | undefined): CaptureRegistration | null {
  if (row === undefined) return null;
  return {
    identity: row.identity_name,
    stateId: row.state_id,
    fingerprint: row.config_fingerprint,
  };
}
