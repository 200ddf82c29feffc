/**
 * The two ends of the valibot parse. Its input is the merged raw tree as plain values: sections
 * become objects (null prototype, so a key such as `constructor` is just a key), lists arrays,
 * every scalar its text; a YAML null (or a placeholder that could not be resolved) is undefined:
 * the key is there but sets nothing. Its output issues become the reference's problem lines
 * (spec §12.1), in the reference's order: first every problem of shape and value, in the order
 * of the tree (a section's unknown keys before its known ones, known keys in schema order); then
 * the rules, block by block in the order the reference checks them. Texts that need the whole
 * path are worded here: the suggestion of an unknown key or variable, the variable of a required
 * key, and the ` (set by <VARS>)` of a value that variables wrote.
 */
import type * as v from 'valibot';
import { envNameToSegments, isEnvExpressible, segmentsToEnvName } from './env-names.js';
import { displayPath, type Path, type Problems } from './problems.js';
import { hasFileContent, type RawNode } from './raw-input.js';
import { REQUIRED, atParent, sectionInfo, type SectionInfo } from './schema/kit.js';
import { nearest, normalizeKey } from './suggest.js';

/** The raw tree as valibot reads it. */
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

/** The order in which the reference runs its rules, by top-level block. */
const RULE_ORDER = ['server', 'database', 'outbox', 'inbox', 'http', 'destinations', 'routes']
  .concat(['sources', 'admin', 'retention'])
  .map(normalizeKey);

function locate(issue: v.BaseIssue<unknown>) {
  // An issue reported at the block rather than at its `type` key drops the last step.
  const items = (issue.path ?? []).slice(0, atParent.has(issue) ? -1 : undefined);
  return {
    issue,
    path: items.map((item) => item.key as string | number) as Path,
    rule: issue.type === 'raw_check' || issue.type === 'check',
    // A key's place in the section or list that holds it: the order of the tree.
    rank: items.map(({ input, key }) =>
      typeof input === 'object' && input !== null ? Object.keys(input).indexOf(String(key)) : 0,
    ),
  };
}

/** Tree order: the first step that differs decides; a path comes before the paths below it. */
function compareRank(a: readonly number[], b: readonly number[]): number {
  const i = a.findIndex((rank, at) => rank !== b[at]);
  return i < 0 || i >= b.length ? a.length - b.length : (a[i] ?? 0) - (b[i] ?? 0);
}

const ruleGroup = (path: Path): number => RULE_ORDER.indexOf(normalizeKey(String(path[0] ?? '')));

/** Adds a line for every issue to `problems`, in the reference's order. */
export function reportIssues(
  issues: readonly v.BaseIssue<unknown>[],
  root: RawNode | undefined,
  problems: Problems,
): void {
  const located = issues.map(locate).filter((entry) => !problems.covers(entry.path));
  const shape = located.filter((entry) => !entry.rule).sort((a, b) => compareRank(a.rank, b.rank));
  const rules = located
    .filter((entry) => entry.rule)
    .sort((a, b) => ruleGroup(a.path) - ruleGroup(b.path));
  for (const { issue, path } of [...shape, ...rules]) {
    const info = sectionInfo(issue.path?.at(-1)?.input);
    if (issue.type === 'never' && info !== undefined) reportKey(problems, path, root, info);
    else if (issue.message === REQUIRED) problems.add(path, `required${requiredHint(path)}`);
    else problems.add(path, issue.message);
  }
}

function requiredHint(path: Path): string {
  return isEnvExpressible(path)
    ? `; set it in the YAML file or with ${segmentsToEnvName(path)}`
    : '';
}

/** A key the section does not take (or one it already has in another spelling). */
function reportKey(problems: Problems, path: Path, root: RawNode | undefined, info: SectionInfo) {
  const written = String(path.at(-1));
  const earlier = info.repeats.get(written);
  if (earlier !== undefined) {
    problems.add(path, `repeats ${displayPath([...path.slice(0, -1), earlier])}; keep one of them`);
    return;
  }
  const key = normalizeKey(written);
  const takers = Object.entries(info.kind === undefined ? {} : (info.kinds ?? {}))
    .filter(([, names]) => names.some((name) => normalizeKey(name) === key))
    .map(([kind]) => kind);
  const kind = info.kind === undefined ? '' : ` for type ${info.kind}`;
  const tail = (near: string | undefined) =>
    near !== undefined ? `; did you mean ${near}?` : takersText(takers);
  const suggestion = nearest(written, info.names);
  const node = nodeAt(root, path);
  const variables = problems.variablesAt(path);
  if (node === undefined || hasFileContent(node) || variables.length === 0)
    problems.addLine(`${displayPath(path)}: unknown key${kind}${tail(suggestion)}`, path);
  for (const variable of variables) {
    const near = variableSuggestion(variable, path.length - 1, suggestion, info.names);
    problems.addLine(`${variable}: unknown variable${kind}${tail(near)}`, path);
  }
}

function takersText(takers: readonly string[]): string {
  if (takers.length === 0) return '';
  if (takers.length === 1) return `; type ${takers[0]} takes it`;
  return `; types ${takers.slice(0, -1).join(', ')} and ${takers[takers.length - 1]} take it`;
}

/**
 * The variable the operator probably meant: the suggested key in place of the wrong segment,
 * or, for `QUEUEBOX_OUTBOX_POLL_INTERVAL_MS`, the leaf written without its inner underscores.
 */
function variableSuggestion(
  variable: string,
  depth: number,
  suggestion: string | undefined,
  names: readonly string[],
): string | undefined {
  const segments = envNameToSegments(variable);
  if (suggestion !== undefined) {
    segments[depth] = suggestion;
    return segmentsToEnvName(segments);
  }
  const rest = segments.slice(depth);
  if (rest.length < 2) return undefined;
  const joined = nearest(rest.join(''), names);
  return joined === undefined
    ? undefined
    : segmentsToEnvName([...segments.slice(0, depth), joined]);
}

/** The raw node a path names (keys compared as YAML compares them). */
function nodeAt(root: RawNode | undefined, path: Path): RawNode | undefined {
  let node = root;
  for (const segment of path) {
    if (node?.kind === 'map') {
      const key = normalizeKey(String(segment));
      node = node.entries.find((entry) => normalizeKey(entry.written) === key)?.node;
    } else if (node?.kind === 'list' && typeof segment === 'number') node = node.items[segment];
    else return undefined;
  }
  return node;
}
