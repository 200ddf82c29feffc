/**
 * Near-miss suggestions for unknown keys, variables and kinds (spec §12.1): optimal string
 * alignment distance on normalised names, at most 1 edit for a name of up to 4 characters and 2
 * otherwise, so `batchSzie` suggests `batchSize` but `url` never suggests `key`.
 */

/** Lower case without `-` and `_`: the form in which YAML keys match (`poll_interval_ms` ≡ `pollIntervalMs`). */
export function normalizeKey(key: string): string {
  return key.toLowerCase().replace(/[-_]/g, '');
}

/** Edits to turn `a` into `b`: insert, delete, substitute, or swap two neighbours. */
export function osaDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[] = new Array<number>(rows * cols).fill(0);
  const at = (i: number, j: number): number => d[i * cols + j] ?? 0;
  for (let i = 0; i < rows; i++) d[i * cols] = i;
  for (let j = 0; j < cols; j++) d[j] = j;
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, at(i - 2, j - 2) + 1);
      }
      d[i * cols + j] = best;
    }
  }
  return at(a.length, b.length);
}

/** The candidate nearest to `written`, or undefined when none is a near miss. Ties keep list order. */
export function nearest(written: string, candidates: readonly string[]): string | undefined {
  const target = normalizeKey(written);
  const limit = target.length <= 4 ? 1 : 2;
  let best: string | undefined;
  let bestDistance = limit + 1;
  for (const candidate of candidates) {
    const distance = osaDistance(target, normalizeKey(candidate));
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}
