import { describe, expect, it } from 'vitest';
import { JsonPayload, type AppConfig } from '@queuebox/core';
import { createJsonataTransformer } from '../transform/jsonata-transformer.js';
import { createMessageRouter } from './message-router.js';
import { validateRouting } from './routing-validator.js';
import { plainHttpRouting } from '../../test/poller-fakes.js';
import {
  brokerAddressRules,
  httpDestination,
  kafkaDestination,
  natsDestination,
  outboxMessage,
  rabbitDestination,
  route,
} from '@queuebox/testing';

type RoutingConfig = Pick<AppConfig, 'routes' | 'destinations'>;

function router(config: RoutingConfig) {
  return createMessageRouter(
    validateRouting(config, createJsonataTransformer(), { addressRules: brokerAddressRules }),
  );
}

describe('router: route selection', () => {
  const config: RoutingConfig = {
    destinations: { a: httpDestination(), b: httpDestination(), c: httpDestination() },
    routes: [route('order.*', 'a'), route('order.**', 'b'), route('**', 'c')],
  };

  it('takes the first matching route in list order', () => {
    const r = router(config);
    expect(r.route(outboxMessage({ topic: 'order.created' }))?.destination).toBe('a');
    expect(r.route(outboxMessage({ topic: 'order.item.added' }))?.destination).toBe('b');
    expect(r.route(outboxMessage({ topic: 'invoice' }))?.destination).toBe('c');
  });

  it('returns null when no route matches', () => {
    const r = router({ destinations: { a: httpDestination() }, routes: [route('order.*', 'a')] });
    expect(r.route(outboxMessage({ topic: 'order' }))).toBeNull();
    expect(r.route(outboxMessage({ topic: 'order.item.added' }))).toBeNull();
  });

  it('answers destinationOf without a row', () => {
    const r = router(config);
    expect(r.destinationOf('order.paid')).toBe('a');
    expect(r.destinationOf('order.item.added')).toBe('b');
    const none = router({ destinations: { a: httpDestination() }, routes: [route('x', 'a')] });
    expect(none.destinationOf('y')).toBeNull();
  });

  it('hands out the compiled route and destination transforms', async () => {
    const r = router({
      destinations: {
        a: httpDestination({
          transform: { expression: '"dest"', timeoutMs: 100, maxDepth: 100, onError: 'Skip' },
        }),
      },
      routes: [
        route('**', 'a', {
          transform: { expression: '"route"', timeoutMs: 100, maxDepth: 100, onError: 'Dead' },
        }),
      ],
    });
    const result = r.route(outboxMessage())!;
    expect(result.destinationType).toBe('http');
    expect(result.routeTransform).toMatchObject({
      onError: 'Dead',
      keyPath: 'routes[0].transform.expression',
    });
    expect(result.destinationTransform).toMatchObject({
      onError: 'Skip',
      keyPath: 'destinations.a.transform.expression',
    });
    expect(await result.routeTransform!.evaluate({}, {})).toEqual({ ok: true, value: 'route' });
  });

  it('gives null transforms, routing key and address for a plain HTTP destination', () => {
    const r = router({ destinations: { a: httpDestination() }, routes: [route('**', 'a')] });
    expect(r.route(outboxMessage())).toEqual(plainHttpRouting('a'));
  });
});

describe('router: routing key precedence', () => {
  const message = outboxMessage({
    topic: 'orders.created',
    key: 'k-1',
    payload: JsonPayload.fromValue({ region: 'eu' }),
  });

  it('renders the route template with the route default, winning over the destination template', () => {
    const r = router({
      destinations: { mq: rabbitDestination({ routingKeyTemplate: 'dest.{{ topic }}' }) },
      routes: [
        route('**', 'mq', {
          routingKeyTemplate: '{{ payload.region }}.{{ payload.missing }}',
          routingKeyMissingFieldDefault: 'none',
        }),
      ],
    });
    expect(r.route(message)?.routingKey).toBe('eu.none');
  });

  it('falls back to the RabbitMQ destination template, with "" for missing fields', () => {
    const r = router({
      destinations: { mq: rabbitDestination({ routingKeyTemplate: '{{ topic }}.{{ region }}' }) },
      routes: [route('**', 'mq', { routingKeyMissingFieldDefault: 'ignored' })],
    });
    expect(r.route(message)?.routingKey).toBe('orders.created.');
  });

  it('uses the default RabbitMQ template {{ topic }}', () => {
    const r = router({ destinations: { mq: rabbitDestination() }, routes: [route('**', 'mq')] });
    expect(r.route(message)?.routingKey).toBe('orders.created');
  });

  it('leaves Kafka without a routing key unless the route sets one', () => {
    const plain = router({ destinations: { k: kafkaDestination() }, routes: [route('**', 'k')] });
    expect(plain.route(message)?.routingKey).toBeNull();
    const keyed = router({
      destinations: { k: kafkaDestination() },
      routes: [route('**', 'k', { routingKeyTemplate: '{{ key }}-{{ data.region }}' })],
    });
    expect(keyed.route(message)?.routingKey).toBe('k-1-eu');
  });

  it('never gives HTTP or NATS a routing key, even when the route sets one', () => {
    const r = router({
      destinations: { h: httpDestination(), n: natsDestination() },
      routes: [
        route('orders.*', 'n', { routingKeyTemplate: '{{ topic }}' }),
        route('**', 'h', { routingKeyTemplate: '{{ topic }}' }),
      ],
    });
    expect(r.route(message)?.routingKey).toBeNull();
    expect(r.route(outboxMessage({ topic: 'x' }))?.routingKey).toBeNull();
  });
});

describe('router: resolved address', () => {
  it('renders the address template from the stored row', () => {
    const r = router({
      destinations: {
        mq: rabbitDestination({ exchange: 'ex.{{ aggregateType }}.{{ payload.region }}' }),
        k: kafkaDestination({ topic: '{{ topic }}' }),
        n: natsDestination({ subject: 'events.{{ key }}' }),
      },
      routes: [route('mq.**', 'mq'), route('k.**', 'k'), route('n.**', 'n')],
    });
    const fields = {
      aggregateType: 'Order',
      key: 'k-9',
      payload: JsonPayload.fromValue({ region: 'eu' }),
    };
    expect(r.route(outboxMessage({ topic: 'mq.a', ...fields }))?.address).toBe('ex.Order.eu');
    expect(r.route(outboxMessage({ topic: 'k.a', ...fields }))?.address).toBe('k.a');
    expect(r.route(outboxMessage({ topic: 'n.a', ...fields }))?.address).toBe('events.k-9');
  });

  it('takes a *From column raw, without rendering, over the template', () => {
    const r = router({
      destinations: {
        mq: rabbitDestination({ exchange: 'ignored', exchangeFrom: 'aggregate_type' }),
        k: kafkaDestination({ topicFrom: 'topic' }),
        n: natsDestination({ subjectFrom: 'key' }),
      },
      routes: [route('mq.**', 'mq'), route('k.**', 'k'), route('n.**', 'n')],
    });
    const fields = { aggregateType: '{{ topic }}', key: 'subject.from.key' };
    expect(r.route(outboxMessage({ topic: 'mq.a', ...fields }))?.address).toBe('{{ topic }}');
    expect(r.route(outboxMessage({ topic: 'k.a', ...fields }))?.address).toBe('k.a');
    expect(r.route(outboxMessage({ topic: 'n.a', ...fields }))?.address).toBe('subject.from.key');
  });

  it('marks a blank rendered address so the poller fails the row, never using the literal', () => {
    const r = router({
      destinations: { k: kafkaDestination({ topic: '{{ payload.target }}' }) },
      routes: [route('**', 'k')],
    });
    const result = r.route(outboxMessage({ payload: JsonPayload.fromValue({ target: '  ' }) }))!;
    expect(result.address).toBe('');
    expect(result.addressProblem).toBe(
      "The address template of destination 'k' rendered empty (topic '{{ payload.target }}')",
    );
    expect(r.route(outboxMessage({ payload: JsonPayload.fromValue({}) }))?.address).toBe('');
  });

  it('marks an empty *From column', () => {
    const r = router({
      destinations: { mq: rabbitDestination({ exchangeFrom: 'aggregate_type' }) },
      routes: [route('**', 'mq')],
    });
    const result = r.route(outboxMessage({ aggregateType: null }))!;
    expect(result.address).toBe('');
    expect(result.addressProblem).toBe(
      "The exchangeFrom column 'aggregate_type' of destination 'mq' is empty for this message, so it has no exchange",
    );
  });
});
