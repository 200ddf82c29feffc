import { createHash } from 'node:crypto';

/** Spec §10.1: lowercase hex SHA-256 of the UTF-8 `key=value` lines joined by `\n`. */
export function captureFingerprint(lines: readonly string[]): string {
  return createHash('sha256').update(lines.join('\n'), 'utf8').digest('hex');
}
