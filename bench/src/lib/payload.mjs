/**
 * The message body every system carries: `{"seq": i, "key": k, "data": "<filler>"}` padded so
 * that its JSON text is `bytes` long (1 KiB by default). The sink reads `seq` back for the
 * ordering check. The filler is random text, fixed per run (no TOAST at this size anyway).
 */
import { randomBytes } from 'node:crypto';

export function makePayloads(bytes, given = null) {
  const alphabet = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
  let filler = given ?? '';
  if (given === null) {
    const noise = randomBytes(bytes * 2);
    for (let i = 0; i < bytes * 2; i += 1) filler += alphabet[noise[i] % alphabet.length];
  }
  return {
    bytes,
    /** The run's filler: a peer process rebuilds the same bodies with makePayloads(bytes, filler). */
    filler,
    /** @param {number} seq @param {string|null} key */
    object(seq, key) {
      const head = JSON.stringify({ seq, key, data: '' }).length;
      return { seq, key, data: filler.slice(0, Math.max(0, bytes - head)) };
    },
    text(seq, key) {
      return JSON.stringify(this.object(seq, key));
    },
  };
}

export const keyOf = (i, keys) => (keys > 0 ? `k${i % keys}` : null);
