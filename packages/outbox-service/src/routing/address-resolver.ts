/**
 * The routing key and the resolved address of one row (spec §5.2). Both read the row as stored:
 * the router runs before any transform.
 */
import {
  renderTemplate,
  type AddressColumn,
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
 * RabbitMQ routing key / Kafka record key. A route template wins (with the route's missing-field
 * default); else a RabbitMQ destination renders its own template with `""` as the default (open
 * question 14); else none. HTTP and NATS never use one, so nothing is rendered for them.
 */
export function resolveRoutingKey(
  route: RouteConfig,
  destination: DestinationConfig,
  fields: TemplateFields,
): string | null {
  if (destination.type === 'http' || destination.type === 'nats') return null;
  if (route.routingKeyTemplate !== null) {
    return renderTemplate(route.routingKeyTemplate, fields, route.routingKeyMissingFieldDefault);
  }
  if (destination.type === 'rabbitmq') {
    return renderTemplate(destination.routingKeyTemplate, fields, '');
  }
  return null;
}

/** The address keys of each broker type: the template and the column that overrides it. */
export interface AddressKeys {
  readonly templateKey: 'exchange' | 'topic' | 'subject';
  readonly fromKey: 'exchangeFrom' | 'topicFrom' | 'subjectFrom';
  readonly template: string;
  readonly from: AddressColumn | null;
}

export function addressKeys(destination: DestinationConfig): AddressKeys | null {
  switch (destination.type) {
    case 'http':
      return null;
    case 'rabbitmq':
      return {
        templateKey: 'exchange',
        fromKey: 'exchangeFrom',
        template: destination.exchange,
        from: destination.exchangeFrom,
      };
    case 'kafka':
      return {
        templateKey: 'topic',
        fromKey: 'topicFrom',
        template: destination.topic,
        from: destination.topicFrom,
      };
    case 'nats':
      return {
        templateKey: 'subject',
        fromKey: 'subjectFrom',
        template: destination.subject,
        from: destination.subjectFrom,
      };
  }
}

export type ResolvedAddress =
  | { readonly address: string | null; readonly problem: null }
  | { readonly address: ''; readonly problem: string };

/**
 * RabbitMQ exchange / Kafka topic / NATS subject. A `*From` column is taken raw (no rendering);
 * otherwise the template renders with `""` for anything missing. A blank result fails this row's
 * publish: QueueBox never falls back to the configured literal, which could be the wrong place.
 */
export function resolveAddress(
  name: string,
  destination: DestinationConfig,
  message: OutboxMessage,
  fields: TemplateFields,
): ResolvedAddress {
  const keys = addressKeys(destination);
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
