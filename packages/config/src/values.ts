import { SQL_IDENTIFIER_PATTERN } from '@queuebox/core';

/** Value formats shared by several rules (spec §12.1). */

const DURATION = /^(\d+)([smhd])$/;
const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** The longest `initialDelay`: 2^31−1 seconds (spec §7.1). */
export const MAX_INITIAL_DELAY_SECONDS = 2_147_483_647;

/** `<whole number><s|m|h|d>` → milliseconds; undefined for anything else (`30`, `-5s`, `1.5h`). */
export function parseDuration(text: string): number | undefined {
  const match = DURATION.exec(text);
  if (match === null) return undefined;
  const ms = Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
  return Number.isSafeInteger(ms) ? ms : undefined;
}

export const DURATION_HINT = 'write a whole number followed by s, m, h or d, such as 30s';

/** Table and column names are interpolated into SQL (quoted as well), so they must be plain identifiers. */
export const SQL_IDENTIFIER = SQL_IDENTIFIER_PATTERN;

export const isBlank = (text: string): boolean => text.trim() === '';
