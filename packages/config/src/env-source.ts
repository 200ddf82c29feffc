/**
 * Turns the `QUEUEBOX_*` variables into a raw tree (spec §13). A segment made only of digits is a
 * list index; the indexes of one list are sorted and compacted, so `QUEUEBOX_ROUTES_3_...` alone
 * is element 0. Map keys from variables are lower case.
 */
import {
  CONFIG_FILE_VARIABLE,
  ENV_PREFIX,
  envNameToSegments,
  isServiceLinkName,
} from './env-names.js';
import type { Problems } from './problems.js';
import type { RawEntry, RawMap, RawNode } from './raw-node.js';
import type { Env } from './yaml-source.js';

type Draft =
  | { readonly kind: 'map'; readonly children: Map<string, Draft> }
  | { readonly kind: 'leaf'; readonly value: string; readonly name: string };

export interface EnvSource {
  /** Null when no configuration variable is set. */
  readonly tree: RawMap | null;
  /** The configuration variables read, sorted. */
  readonly names: readonly string[];
}

/**
 * Reads the configuration variables. `binds` says whether a path names a setting: a Kubernetes
 * service-link name is ignored only when it binds none, so `QUEUEBOX_OUTBOX_CAPTURE_CONNECTION_PORT`
 * still sets the capture port.
 */
export function readEnvSource(
  env: Env,
  binds: (segments: readonly string[]) => boolean,
  problems: Problems,
): EnvSource {
  const root: Draft = { kind: 'map', children: new Map() };
  const names: string[] = [];
  for (const name of Object.keys(env).sort()) {
    const value = env[name];
    if (value === undefined || !name.startsWith(ENV_PREFIX) || name === CONFIG_FILE_VARIABLE)
      continue;
    const segments = envNameToSegments(name);
    if (isServiceLinkName(name) && !binds(segments)) continue;
    names.push(name);
    insert(root, segments, value, name, problems);
  }
  if (names.length === 0) return { tree: null, names };
  return { tree: toMap(root), names };
}

function insert(
  root: Draft,
  segments: readonly string[],
  value: string,
  name: string,
  problems: Problems,
): void {
  let node = root;
  for (const [i, segment] of segments.entries()) {
    if (node.kind !== 'map') return;
    const last = i === segments.length - 1;
    const child = node.children.get(segment);
    if (child === undefined) {
      const created: Draft = last
        ? { kind: 'leaf', value, name }
        : { kind: 'map', children: new Map() };
      node.children.set(segment, created);
      node = created;
    } else if (last || child.kind === 'leaf') {
      const other = firstName(child);
      problems.addLine(
        last && child.kind === 'leaf'
          ? `${name}: sets the same setting as ${other}; remove one of them`
          : `${name}: conflicts with ${other}; one sets a value where the other sets keys below it, so remove one of them`,
      );
      return;
    } else {
      node = child;
    }
  }
}

function firstName(draft: Draft): string {
  if (draft.kind === 'leaf') return draft.name;
  const names = [...draft.children.values()].map(firstName).sort();
  return names[0] ?? '';
}

function toNode(draft: Draft): RawNode {
  if (draft.kind === 'leaf') return { kind: 'scalar', value: draft.value, env: draft.name };
  const keys = [...draft.children.keys()];
  if (keys.length > 0 && keys.every((k) => /^\d+$/.test(k))) {
    const items = keys
      .sort((a, b) => Number(a) - Number(b))
      .map((k) => toNode(draft.children.get(k) ?? { kind: 'map', children: new Map() }));
    return { kind: 'list', items };
  }
  return toMap(draft);
}

function toMap(draft: Draft): RawMap {
  if (draft.kind === 'leaf') return { kind: 'map', entries: [] };
  const entries: RawEntry[] = [...draft.children].map(([written, child]) => ({
    written,
    node: toNode(child),
  }));
  return { kind: 'map', entries };
}
