/**
 * A failure of `queuebox dev` whose message is already the whole answer for the person at the
 * terminal: what failed, the port or directory it concerns, and what to do about it.
 */
export class DevError extends Error {
  override readonly name = 'DevError';
}
