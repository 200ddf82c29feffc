/**
 * The merged raw tree as plain values for valibot: sections become objects (null prototype, so a
 * key such as `constructor` is just a key), lists arrays, every scalar its text. A YAML null (or
 * a placeholder that could not be resolved) is undefined: the key is there but sets nothing.
 */
import type { RawNode } from './raw-node.js';

export function toPlain(node: RawNode): unknown {
  switch (node.kind) {
    case 'null':
      return undefined;
    case 'scalar':
      return String(node.value);
    case 'list':
      return node.items.map(toPlain);
    case 'map': {
      const map = Object.create(null) as Record<string, unknown>;
      for (const entry of node.entries) map[entry.written] = toPlain(entry.node);
      return map;
    }
  }
}
