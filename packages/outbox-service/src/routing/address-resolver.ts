/**
 * The routing key and the resolved address of one row (spec §5.2). Both read the row as stored:
 * the router runs before any transform.
 */
import {
  renderTemplate,
  type AddressColumn,
  type BrokerAddressRules,
  type DestinationConfig,
  type OutboxMessage,
  type RouteConfig,
  type TemplateFields,
} from '@queuebox/core';

export function templateFields(message: OutboxMessage): TemplateFields {
  return {
    topic: message.topic,
    key: message.key,
    aggregateType: message.aggregateType,
    payload: message.payload,
  };
}

/**
 * The routing key (a broker's routing key or record key). A route template wins (with
 * the route's missing-field default); else a destination whose broker names its own template
 * renders it with `""` as the default (open question 14); else none. HTTP and a broker that
 * carries no routing key (`rules.routingKey` null) never use one, so nothing is rendered for them.
 */
export function resolveRoutingKey(
  route: RouteConfig,
  destination: DestinationConfig,
  rules: BrokerAddressRules | null,
  fields: TemplateFields,
): string | null {
  const routingKey = rules?.routingKey ?? null;
  if (routingKey === null) return null;
  if (route.routingKeyTemplate !== null) {
    return renderTemplate(route.routingKeyTemplate, fields, route.routingKeyMissingFieldDefault);
  }
  const own =
    routingKey.ownTemplateKey === null ? null : keyOf(destination, routingKey.ownTemplateKey);
  return typeof own === 'string' ? renderTemplate(own, fields, '') : null;
}

/** The address keys of a broker destination: the template and the column that overrides it. */
export interface AddressKeys {
  readonly templateKey: string;
  readonly fromKey: string;
  readonly template: string;
  readonly from: AddressColumn | null;
}

/** The destination's address keys as its broker names them; null for HTTP or without rules. */
export function addressKeys(
  destination: DestinationConfig,
  rules: BrokerAddressRules | null,
): AddressKeys | null {
  if (destination.type === 'http' || rules === null) return null;
  const template = keyOf(destination, rules.templateKey);
  const from = keyOf(destination, rules.fromKey);
  return {
    templateKey: rules.templateKey,
    fromKey: rules.fromKey,
    template: typeof template === 'string' ? template : '',
    from: typeof from === 'string' ? (from as AddressColumn) : null,
  };
}

/** A destination key by the name its broker gives it (the config is the broker's own shape). */
const keyOf = (destination: DestinationConfig, key: string): unknown =>
  (destination as unknown as Readonly<Record<string, unknown>>)[key];

export type ResolvedAddress =
  | { readonly address: string | null; readonly problem: null }
  | { readonly address: ''; readonly problem: string };

/**
 * The broker address (an exchange, a topic, a subject). A `*From` column is taken raw (no rendering);
 * otherwise the template renders with `""` for anything missing. A blank result fails this row's
 * publish: QueueBox never falls back to the configured literal, which could be the wrong place.
 */
export function resolveAddress(
  name: string,
  destination: DestinationConfig,
  rules: BrokerAddressRules | null,
  message: OutboxMessage,
  fields: TemplateFields,
): ResolvedAddress {
  const keys = addressKeys(destination, rules);
  if (keys === null) return { address: null, problem: null };
  if (keys.from !== null) {
    const value = columnValue(message, keys.from);
    if (value.trim() !== '') return { address: value, problem: null };
    return {
      address: '',
      problem: `The ${keys.fromKey} column '${keys.from}' of destination '${name}' is empty for this message, so it has no ${keys.templateKey}`,
    };
  }
  const rendered = renderTemplate(keys.template, fields, '');
  if (rendered.trim() !== '') return { address: rendered, problem: null };
  return {
    address: '',
    problem: `The address template of destination '${name}' rendered empty (${keys.templateKey} '${keys.template}')`,
  };
}

function columnValue(message: OutboxMessage, column: AddressColumn): string {
  switch (column) {
    case 'aggregate_type':
      return message.aggregateType ?? '';
    case 'topic':
      return message.topic;
    case 'key':
      return message.key ?? '';
  }
}
