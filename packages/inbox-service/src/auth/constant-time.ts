import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Compares a received credential with the configured one without leaking either through timing.
 * Both sides are hashed first, so the comparison always runs over 32 bytes: `timingSafeEqual`
 * alone throws on a length mismatch, and checking the length first would leak it (spec §16.1).
 */
export function constantTimeEquals(received: string, expected: string): boolean {
  return timingSafeEqual(sha256(received), sha256(expected));
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}
