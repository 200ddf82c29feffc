/**
 * The template dialects of spec §5.3. Routing-key and address templates share the full language
 * (`{{ topic }}`, `{{ key }}`, `{{ aggregateType }}`, `{{ payload.a.b }}` / `{{ data.a.b }}`);
 * the relay's source topic is a plain literal replacement, kept separate because the reference
 * never parsed it with the full language (a broker's own key template, which is one too, lives
 * in its package).
 */
import type { JsonPayload } from './json-payload.js';
import type { JsonPathSegments } from './json-path.js';
import { findJsonPath, jsonSourceText } from './json-text.js';

/** The row fields a routing-key or address template can read. */
export interface TemplateFields {
  readonly topic: string;
  readonly key: string | null;
  readonly aggregateType: string | null;
  /** The payload as stored: the router runs before any transform. */
  readonly payload: JsonPayload;
}

const PLACEHOLDER = /\{\{\s*([^}]+?)\s*}}/g;
const PAYLOAD_PREFIXES = ['payload.', 'data.'];
const ADDRESS_FIELDS = new Set(['topic', 'key', 'aggregateType']);

/**
 * Renders a routing-key or address template. Anything that does not resolve (an unknown
 * placeholder, a null column, a missing or null payload field) renders `missingDefault`.
 */
export function renderTemplate(
  template: string,
  fields: TemplateFields,
  missingDefault: string,
): string {
  return template.replace(
    PLACEHOLDER,
    (_match, name: string) => resolveField(name, fields) ?? missingDefault,
  );
}

/**
 * The placeholders an address template (a broker's exchange, topic or subject) may not use,
 * each once, in order of appearance. An address that silently rendered a default would publish
 * to the wrong place, so the start stops naming these.
 */
export function addressTemplateProblems(template: string): string[] {
  const problems: string[] = [];
  for (const match of template.matchAll(PLACEHOLDER)) {
    const name = match[1] ?? '';
    const allowed = ADDRESS_FIELDS.has(name) || payloadPath(name) !== undefined;
    if (!allowed && !problems.includes(name)) problems.push(name);
  }
  return problems;
}

/**
 * The relay's source topic (`sources.<n>.topic`): only `{{ source }}` and `{{ eventType }}`,
 * with or without single inner spaces; everything else is literal. The result is trimmed; the
 * relay treats an empty result as a dead row.
 */
export function renderSourceTopic(
  template: string,
  values: { readonly source: string; readonly eventType: string | null },
): string {
  const rendered = template.replace(
    /\{\{ source }}|\{\{source}}|\{\{ eventType }}|\{\{eventType}}/g,
    (match) => (match.includes('source') ? values.source : (values.eventType ?? '')),
  );
  return rendered.trim();
}

function resolveField(name: string, fields: TemplateFields): string | undefined {
  if (name === 'topic') return fields.topic;
  if (name === 'key') return fields.key ?? undefined;
  if (name === 'aggregateType') return fields.aggregateType ?? undefined;
  const path = payloadPath(name);
  return path === undefined ? undefined : payloadText(fields.payload, path);
}

function payloadPath(name: string): string[] | undefined {
  const prefix = PAYLOAD_PREFIXES.find((p) => name.startsWith(p));
  return prefix === undefined ? undefined : name.slice(prefix.length).split('.');
}

/**
 * Traverses objects only: an array index or an empty segment is missing. The payload's text is
 * read, not a parsed copy, so a number renders as stored (an integer keeps every digit) and a
 * routing key costs no parse of the whole payload; an object or array renders as compact JSON
 * text with its numbers as stored.
 */
function payloadText(payload: JsonPayload, path: readonly string[]): string | undefined {
  if (path.includes('')) return undefined;
  const segments: JsonPathSegments = path.map((name) => ({ kind: 'property', name }));
  const span = findJsonPath(payload.text, segments);
  return span === undefined ? undefined : (jsonSourceText(payload.text, span) ?? undefined);
}
