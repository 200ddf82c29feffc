/**
 * Reads the shape of a valibot schema: what a section, a kinded block, a map or a list holds.
 * The variable reader uses it to tell a Kubernetes service-link name from a setting, and the
 * documentation generator to list every key.
 */
import type * as v from 'valibot';

export interface Node {
  readonly kind: string;
  readonly type: string;
  readonly wrapped?: Node;
  readonly default?: unknown;
  readonly pipe?: readonly Node[];
  readonly entries?: Readonly<Record<string, Node>>;
  readonly options?: readonly Node[];
  readonly value?: Node;
  readonly item?: Node;
  readonly metadata?: Readonly<Record<string, unknown>>;
}

export const asNode = (schema: v.GenericSchema): Node => schema;

/** The schema that decides the structure: inside optional, nullable and pipes. */
export function structure(schema: Node): Node {
  let node = schema;
  for (;;) {
    if ((node.type === 'optional' || node.type === 'nullable') && node.wrapped !== undefined) {
      node = node.wrapped;
      continue;
    }
    const inner = node.pipe?.filter((item) => item.kind === 'schema').at(-1);
    if (inner === undefined || inner === node) return node;
    node = inner;
  }
}

const isIndex = (segment: string | undefined): boolean =>
  segment !== undefined && /^\d+$/.test(segment);

/** Whether a variable path (lower-case segments) names a setting of `schema`. */
export function binds(schema: Node, segments: readonly string[]): boolean {
  const node = structure(schema);
  const [first, ...rest] = segments;
  if (node.entries !== undefined) {
    if (first === undefined) return false;
    const key = first.replace(/[-_]/g, '');
    const name = Object.keys(node.entries).find(
      (k) => k.toLowerCase().replace(/[-_]/g, '') === key,
    );
    const entry = name === undefined ? undefined : node.entries[name];
    return entry !== undefined && binds(entry, rest);
  }
  if (node.options !== undefined) return node.options.some((option) => binds(option, segments));
  if (node.type === 'record' && node.value !== undefined)
    return first !== undefined && binds(node.value, rest);
  if (node.type === 'array' && node.item !== undefined)
    return first === undefined ? binds(node.item, []) : isIndex(first) && binds(node.item, rest);
  return first === undefined;
}
