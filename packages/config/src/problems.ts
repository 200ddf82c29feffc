/**
 * Collects every problem of one load, so the operator fixes the whole configuration in one pass.
 * A problem names its YAML path; when `QUEUEBOX_*` variables set that path (or anything below
 * it) the line ends with ` (set by <VARS>)`, because the file alone would not explain it.
 */
import { ConfigError } from './config-error.js';
import { normalizeKey } from './suggest.js';

/** A YAML path: map keys and section keys as strings, list indexes as numbers. */
export type Path = readonly (string | number)[];

/** `['routes', 0, 'destination']` → `routes[0].destination`. */
export function displayPath(path: Path): string {
  let text = '';
  for (const segment of path) {
    if (typeof segment === 'number') text += `[${segment}]`;
    else text += text === '' ? segment : `.${segment}`;
  }
  return text;
}

/** A path as keys compare (`poll_interval_ms` ≡ `pollIntervalMs`). */
export const comparable = (path: Path): string[] => path.map((s) => normalizeKey(String(s)));

export const isPrefix = (prefix: readonly string[], path: readonly string[]): boolean =>
  prefix.length <= path.length && prefix.every((segment, i) => segment === path[i]);

export class Problems {
  readonly #lines: string[] = [];
  readonly #paths: string[][] = [];
  /** Variable name → the path its value ended at (after list compaction), comparable form. */
  #envPaths = new Map<string, string[]>();

  setEnvPaths(paths: ReadonlyMap<string, Path>): void {
    this.#envPaths = new Map([...paths].map(([name, path]) => [name, comparable(path)]));
  }

  /** Reports a problem at `path`, naming the variables that set it. */
  add(path: Path, message: string): void {
    const variables = this.variablesAt(path);
    const setBy = variables.length === 0 ? '' : ` (set by ${variables.join(', ')})`;
    this.addLine(`${displayPath(path)}: ${message}${setBy}`, path);
  }

  /** Reports a line as written (an unknown variable names itself). */
  addLine(line: string, path?: Path): void {
    this.#lines.push(line);
    if (path !== undefined) this.#paths.push(comparable(path));
  }

  /** The variables whose value lies at or below `path`, sorted. */
  variablesAt(path: Path): string[] {
    const at = comparable(path);
    return [...this.#envPaths]
      .filter(([, envPath]) => isPrefix(at, envPath))
      .map(([name]) => name)
      .sort();
  }

  /** Whether a problem was reported at `path` or above it (a placeholder that did not resolve). */
  covers(path: Path): boolean {
    const at = comparable(path);
    return this.#paths.some((reported) => isPrefix(reported, at));
  }

  throwIfAny(): void {
    if (this.#lines.length > 0) throw ConfigError.fromProblems(this.#lines);
  }
}
