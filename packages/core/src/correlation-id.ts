/**
 * The correlation id header (spec §4.3 step 1, §7.2, §15). The inbox echoes and stores it, the
 * relay copies it into the outbox row's headers, the poller logs it, and a broker source reads it
 * before the broker's own property: one name and one lookup for all of them.
 */
export const CORRELATION_ID_HEADER = 'X-Correlation-Id';

const LOWER_CASE_NAME = CORRELATION_ID_HEADER.toLowerCase();

/** The header `X-Correlation-Id` of a header record, in any letter case. */
export function correlationIdOf(headers: Readonly<Record<string, string>>): string | undefined {
  // The exact spelling first: the relay writes it so, and this runs once per delivered row.
  const exact = headers[CORRELATION_ID_HEADER];
  if (exact !== undefined) return exact;
  for (const name in headers) {
    if (name.length === LOWER_CASE_NAME.length && name.toLowerCase() === LOWER_CASE_NAME)
      return headers[name];
  }
  return undefined;
}
