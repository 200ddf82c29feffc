/**
 * The effective configuration, one setting per line, with where each value came from: the
 * YAML file (or the packaged demo), a `QUEUEBOX_*` variable, or the default (`queuebox config
 * print`). Every value is printed masked: secrets print their mask, URLs their masked form, and
 * static headers and secret-looking OAuth2 parameters `***`, as in the start log (spec §16.3).
 *
 * It walks the assembled AppConfig, not the raw tree, so what it prints is what QueueBox runs
 * with, defaults and derived values included; the raw tree only answers "who set this".
 */
import { Secret, type AppConfig } from '@queuebox/core';
import { SECRET_PARAM, URL_KEYS } from './assemble.js';
import { loadConfigTree, type LoadConfigOptions } from './load-config.js';
import { maskUrl } from './values.js';
import { displayPath, type Path } from './problems.js';
import type { RawNode } from './raw-input.js';
import { normalizeKey } from './suggest.js';

export type SettingOrigin =
  | { readonly kind: 'file'; readonly file: string }
  | { readonly kind: 'variable'; readonly names: readonly string[] }
  /** `from` names the setting a derived default follows (`inbox.relay.maxAttempts`). */
  | { readonly kind: 'default'; readonly from?: string };

export interface ExplainedSetting {
  /** `outbox.batchSize`, `routes[0].destination`. */
  readonly path: string;
  /** Printable and masked: JSON for text and lists, bare numbers and booleans, `Secret(***)`. */
  readonly value: string;
  readonly origin: SettingOrigin;
}

export interface ConfigExplanation {
  readonly config: AppConfig;
  /** The YAML source read, or null when only variables configure. */
  readonly fileName: string | null;
  readonly settings: readonly ExplainedSetting[];
}

/** Settings whose default is another setting's value (spec §12.2). */
const DERIVED: Readonly<Record<string, string>> = {
  'database.username': 'database.url',
  'database.password': 'database.url',
  'outbox.capture.connection.hostname': 'database.url',
  'outbox.capture.connection.port': 'database.url',
  'outbox.capture.connection.database': 'database.url',
  'outbox.capture.connection.username': 'database.username',
  'outbox.capture.connection.password': 'database.password',
  'inbox.relay.maxAttempts': 'outbox.maxAttempts',
};

/** The parsed form of `database.url`: printing it would only repeat the URL, unmasked. */
const SKIPPED = new Set(['database.connection']);

/** Loads as `loadConfig` does (same errors) and explains every setting. */
export function explainConfig(options: LoadConfigOptions = {}): ConfigExplanation {
  const { config, merged, fileName } = loadConfigTree(options);
  const settings: ExplainedSetting[] = [];
  const file = fileName ?? '';
  const walk = (value: unknown, path: Path, raw: RawNode | undefined): void => {
    const shown = displayPath(path);
    if (SKIPPED.has(shown)) return;
    if (isBranch(value)) {
      const entries = Array.isArray(value)
        ? value.map((item, i) => [i, item] as const)
        : Object.entries(value);
      if (entries.length > 0) {
        for (const [key, child] of entries) walk(child, [...path, key], childOf(raw, key));
        return;
      }
    }
    settings.push({
      path: shown,
      value: printable(value, path),
      origin: originOf(raw, shown, file),
    });
  };
  for (const [key, value] of Object.entries(config)) walk(value, [key], childOf(merged, key));
  return { config, fileName, settings };
}

/** A map or a list of blocks is walked into; a list of text and a filter rule are one value. */
function isBranch(value: unknown): value is Record<string, unknown> | readonly unknown[] {
  if (typeof value !== 'object' || value === null || value instanceof Secret) return false;
  if (Array.isArray(value)) return value.some((item) => typeof item === 'object' && item !== null);
  return !isRule(value);
}

/** A header filter rule (`{ header, test }`): its YAML form is one line, not the parsed parts. */
function isRule(value: unknown): boolean {
  return typeof value === 'object' && value !== null && 'header' in value && 'test' in value;
}

function childOf(raw: RawNode | undefined, key: string | number): RawNode | undefined {
  if (raw === undefined) return undefined;
  if (typeof key === 'number') return raw.kind === 'list' ? raw.items[key] : undefined;
  if (raw.kind !== 'map') return undefined;
  const find = (name: string) =>
    raw.entries.find((entry) => normalizeKey(entry.written) === normalizeKey(name))?.node;
  const found = find(key);
  if (found !== undefined) return found;
  // A single `secret` is assembled as a list of one (`secrets`).
  const single = key === 'secrets' ? find('secret') : undefined;
  if (single !== undefined) return { kind: 'list', items: [single] };
  // Durations are written `maxAge: 7d` and assembled as `maxAgeMs`.
  return key.endsWith('Ms') ? find(key.slice(0, -2)) : undefined;
}

function originOf(raw: RawNode | undefined, path: string, file: string): SettingOrigin {
  if (raw === undefined || raw.kind === 'null') {
    const from = DERIVED[path];
    return from === undefined ? { kind: 'default' } : { kind: 'default', from };
  }
  const names = [...new Set(variablesIn(raw))];
  return names.length > 0 ? { kind: 'variable', names } : { kind: 'file', file };
}

/** The variables that set anything inside `node`, in tree order. */
function variablesIn(node: RawNode): string[] {
  if (node.kind === 'scalar') return node.env === undefined ? [] : [node.env];
  if (node.kind === 'map') return node.entries.flatMap((entry) => variablesIn(entry.node));
  if (node.kind === 'list') return node.items.flatMap(variablesIn);
  return [];
}

function printable(value: unknown, path: Path): string {
  if (value instanceof Secret) return value.toString();
  const key = String(path[path.length - 1] ?? '');
  const parent = String(path[path.length - 2] ?? '');
  if (typeof value === 'string') {
    if (parent === 'headers' || (parent === 'extraParams' && SECRET_PARAM.test(key))) return '***';
    return JSON.stringify(URL_KEYS.has(key) ? maskUrl(value) : value);
  }
  if (isRule(value)) return ruleText(value as RuleShape);
  return JSON.stringify(value) ?? 'null';
}

interface RuleShape {
  readonly header: string;
  readonly test: { kind: string; value?: string; values?: readonly string[]; glob?: string };
}

function ruleText(rule: RuleShape): string {
  const { test } = rule;
  const operand =
    test.kind === 'exists'
      ? 'true'
      : JSON.stringify(test.kind === 'in' ? test.values : (test.value ?? test.glob));
  const operator = test.kind === 'exists' ? 'exists' : test.kind;
  return `{ header: ${JSON.stringify(rule.header)}, ${operator}: ${operand} }`;
}
