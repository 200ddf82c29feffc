/**
 * The headers of one received request, read once: lookups in any letter case, the last value of
 * a repeated name (spec §7.3, §7.5), and the stored copy without credential headers.
 */
import { setOwn, type Headers } from '@queuebox/core';

interface Entry {
  /** The name as the sender wrote it (of the last occurrence). */
  readonly name: string;
  readonly value: string;
}

export class ReceivedHeaders {
  readonly #byLowerName = new Map<string, Entry>();

  /** @param entries name/value pairs in arrival order; a repeated name keeps its last value. */
  constructor(entries: Iterable<readonly [string, string]>) {
    for (const [name, value] of entries) {
      // HTTP/2 pseudo headers (`:path`, ...) are request metadata, not headers a sender set.
      if (name.startsWith(':')) continue;
      const lower = name.toLowerCase();
      // Deleting first moves the name to the end, so the stored order is the order of last values.
      this.#byLowerName.delete(lower);
      this.#byLowerName.set(lower, { name, value });
    }
  }

  /** The value of a header in any letter case; the last one when the name repeats. */
  get(name: string): string | undefined {
    return this.#byLowerName.get(name.toLowerCase())?.value;
  }

  /** `get` bound for passing around (auth, extraction). */
  readonly lookup = (name: string): string | undefined => this.get(name);

  /** `get` for a name that is lower-case already (the header filter lower-cases at start). */
  readonly lookupLowerCase = (lowerCaseName: string): string | undefined =>
    this.#byLowerName.get(lowerCaseName)?.value;

  /**
   * The headers to store and to bind as `$headers`: every name except `excluded` (lower-case
   * names), with the sender's spelling, so `$headers."X-Tenant"` reads what was sent.
   */
  stored(excluded: ReadonlySet<string>): Headers {
    const headers: Headers = {};
    for (const [lower, { name, value }] of this.#byLowerName) {
      if (excluded.has(lower)) continue;
      // A header named `__proto__` must stay data, never become the prototype.
      setOwn(headers, name, value);
    }
    return headers;
  }
}
