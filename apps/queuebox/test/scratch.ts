/**
 * What a suite or a test opened (a database, a sink, a broker kit, the service), closed after
 * it, last opened first: the service stops before the sink and the kit it reaches, and the
 * database is dropped once nothing uses it. A close that throws does not keep the others open.
 */
import { afterAll, afterEach } from 'vitest';

export interface Scratch {
  /** Resolves `opening`, and closes what it resolved to when the scratch is emptied. */
  open<T>(opening: Promise<T> | T, close: (opened: T) => unknown): Promise<T>;
  /** Runs `close` when the scratch is emptied, before what was opened ahead of it. */
  defer(close: () => unknown): void;
}

function scratch(
  register: (empty: () => Promise<void>, timeoutMs?: number) => void,
  timeoutMs?: number,
): Scratch {
  const closers: (() => unknown)[] = [];
  register(async () => {
    const failures: unknown[] = [];
    for (const close of closers.splice(0).reverse()) {
      try {
        await close();
      } catch (error) {
        failures.push(error);
      }
    }
    if (failures.length > 0) throw failures[0];
  }, timeoutMs);
  return {
    async open(opening, close) {
      const opened = await opening;
      closers.push(() => close(opened));
      return opened;
    },
    defer(close) {
      closers.push(close);
    },
  };
}

/** Emptied after the file's (or describe's) last test, within `timeoutMs` where given. */
export const suiteScratch = (timeoutMs?: number): Scratch => scratch(afterAll, timeoutMs);

/** Emptied after each test, within `timeoutMs` where given. */
export const testScratch = (timeoutMs?: number): Scratch => scratch(afterEach, timeoutMs);
