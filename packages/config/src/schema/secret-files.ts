/**
 * The reader of `file:` secrets for the load in progress. valibot passes no context of ours to
 * a schema, and the schema is built once per process (building it per load would cost the start),
 * so the loader lends its reader here for the one synchronous parse.
 */
type Reader = (path: string) => string | undefined;

let current: Reader | undefined;

export function withSecretReader<T>(reader: Reader, run: () => T): T {
  const previous = current;
  current = reader;
  try {
    return run();
  } finally {
    current = previous;
  }
}

export function readSecretFile(path: string): string | undefined {
  return current?.(path);
}
