/**
 * What a broker suite opens and must close: its kit (made before the suite's first test, cleaned
 * up after its last) and what each test opens (publishers, consumers, fault proxies).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll } from 'vitest';

interface Closable {
  close(): Promise<void>;
}

/**
 * The kit `make` gives, made before the suite's first test and cleaned up after its last; read
 * it in tests and hooks only.
 */
export function suiteKit<K extends { cleanup(): Promise<void> }>(make: () => K | Promise<K>): K {
  let made: K | undefined;
  beforeAll(async () => {
    made = await make();
  });
  afterAll(async () => {
    await made?.cleanup();
  });
  return new Proxy({} as K, {
    get(_target, property) {
      if (made === undefined) throw new Error('the suite kit is made in beforeAll');
      const value: unknown = Reflect.get(made, property, made);
      return typeof value === 'function' ? (value as () => unknown).bind(made) : value;
    },
  });
}

/**
 * Returns what it is given and closes it after the test, the last opened first: a publisher or
 * consumer closes before the proxy it dials through.
 */
export function closedAfterEach(): <T extends Closable>(resource: T) => T {
  const opened: Closable[] = [];
  afterEach(async () => {
    for (const resource of opened.splice(0).reverse()) await resource.close();
  });
  return (resource) => {
    opened.push(resource);
    return resource;
  };
}

/** A suite's kit (`suiteKit`) and `closing` (`closedAfterEach`) for what each test opens. */
export function suiteScope<K extends { cleanup(): Promise<void> }>(
  make: () => K | Promise<K>,
): { readonly kit: K; readonly closing: <T extends Closable>(resource: T) => T } {
  return { kit: suiteKit(make), closing: closedAfterEach() };
}

/** Makes a fresh directory named from `prefix` in the system's temporary one, removed after the test. */
export function tempDirsAfterEach(): (prefix: string) => string {
  const made: string[] = [];
  afterEach(() => {
    for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  return (prefix) => {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    made.push(dir);
    return dir;
  };
}
