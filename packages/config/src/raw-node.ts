/**
 * The merged, untyped configuration tree: YAML and `QUEUEBOX_*` variables meet here before the
 * schema reads them. Every scalar remembers the variable that set it (if any), because a problem
 * must name the variable rather than a YAML path the operator never wrote.
 */
import { normalizeKey } from './suggest.js';
import type { Path } from './problems.js';

export interface RawScalar {
  readonly kind: 'scalar';
  /** Text as written; a number or boolean only for an explicit YAML tag (`!!int 5`). */
  readonly value: string | number | boolean;
  /** The variable that set this value; undefined when it came from a YAML file. */
  readonly env?: string;
}

/** A YAML `~`/`null`/empty value: the key is present but sets nothing. */
export interface RawNull {
  readonly kind: 'null';
}

export interface RawEntry {
  /** The key as its source wrote it (variables give lower case). */
  readonly written: string;
  readonly node: RawNode;
}

export interface RawMap {
  readonly kind: 'map';
  readonly entries: readonly RawEntry[];
}

export interface RawList {
  readonly kind: 'list';
  readonly items: readonly RawNode[];
}

export type RawNode = RawScalar | RawNull | RawMap | RawList;

/**
 * Overlays variables on the file: maps merge key by key (keys match as YAML keys do, ignoring
 * case, `-` and `_`), while a list or a value set by variables replaces the file's entirely.
 */
export function mergeNodes(base: RawNode | undefined, over: RawNode): RawNode {
  if (base?.kind !== 'map' || over.kind !== 'map') return over;
  const entries = [...base.entries];
  for (const entry of over.entries) {
    const key = normalizeKey(entry.written);
    const index = entries.findIndex((existing) => normalizeKey(existing.written) === key);
    if (index < 0) {
      entries.push(entry);
    } else {
      const existing = entries[index];
      if (existing !== undefined) {
        entries[index] = { written: existing.written, node: mergeNodes(existing.node, entry.node) };
      }
    }
  }
  return { kind: 'map', entries };
}

/** Where each variable's value ended up, for the ` (set by ...)` suffix. */
export function envPaths(root: RawNode): Map<string, Path> {
  const found = new Map<string, Path>();
  const walk = (node: RawNode, path: (string | number)[]): void => {
    if (node.kind === 'scalar' && node.env !== undefined) found.set(node.env, path);
    else if (node.kind === 'map') node.entries.forEach((e) => walk(e.node, [...path, e.written]));
    else if (node.kind === 'list') node.items.forEach((item, i) => walk(item, [...path, i]));
  };
  walk(root, []);
  return found;
}

/** Whether a YAML file wrote anything inside `node` (an empty section counts). */
export function hasFileContent(node: RawNode): boolean {
  switch (node.kind) {
    case 'scalar':
      return node.env === undefined;
    case 'null':
      return true;
    case 'map':
      return node.entries.length === 0 || node.entries.some((e) => hasFileContent(e.node));
    case 'list':
      return node.items.length === 0 || node.items.some(hasFileContent);
  }
}
