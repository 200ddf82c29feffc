import { describe, expect, it } from 'vitest';
import type { AppConfig, TransformConfig } from '@queuebox/core';
import { createJsonataTransformer } from '../transform/jsonata-transformer.js';
import { RoutingConfigError, validateRouting } from './routing-validator.js';
import {
  brokerAddressRules,
  httpDestination,
  kafkaDestination,
  natsDestination,
  rabbitDestination,
  route,
} from '@queuebox/testing';

type RoutingConfig = Pick<AppConfig, 'routes' | 'destinations'>;
const transformer = createJsonataTransformer();

function transform(expression: string): TransformConfig {
  return { expression, timeoutMs: 100, maxDepth: 100, onError: 'Fail' };
}

function problemsOf(
  config: RoutingConfig,
  publisherTypes?: ('http' | 'rabbitmq' | 'kafka' | 'nats')[],
): readonly string[] {
  try {
    validateRouting(config, transformer, {
      addressRules: brokerAddressRules,
      ...(publisherTypes === undefined ? {} : { publisherTypes }),
    });
  } catch (error: unknown) {
    if (error instanceof RoutingConfigError) return error.problems;
    throw error;
  }
  return [];
}

describe('validateRouting', () => {
  it('compiles a valid configuration into a plan', () => {
    const plan = validateRouting(
      {
        destinations: { a: httpDestination({ transform: transform('$') }) },
        routes: [route('orders.*', 'a', { transform: transform('{"x": 1}') })],
      },
      transformer,
      { publisherTypes: ['http'] },
    );
    expect(plan.routes).toHaveLength(1);
    expect(plan.routes[0]?.pattern.test('orders.created')).toBe(true);
    expect(plan.routes[0]?.transform?.keyPath).toBe('routes[0].transform.expression');
    expect(plan.destinations.get('a')?.transform?.keyPath).toBe(
      'destinations.a.transform.expression',
    );
  });

  it('names the key path of an expression that does not compile', () => {
    expect(() =>
      validateRouting(
        {
          destinations: { a: httpDestination() },
          routes: [route('**', 'a', { transform: transform('((') })],
        },
        transformer,
      ),
    ).toThrow(
      'routes[0].transform.expression: the JSONata expression does not compile: Expected ")" before end of expression (position 2)',
    );
  });

  it('refuses a placeholder an address may not use, naming the field and the destination', () => {
    expect(
      problemsOf({
        destinations: {
          mq: rabbitDestination({ exchange: 'ex.{{ region }}' }),
          k: kafkaDestination({ topic: '{{ payload.a }}-{{ source }}' }),
          n: natsDestination({ subject: '{{topic}}.{{ key }}.{{ aggregateType }}.{{ data.x.y }}' }),
        },
        routes: [],
      }),
    ).toEqual([
      "destinations.mq.exchange: the placeholder '{{ region }}' is not allowed in the exchange of destination 'mq'. An address may use topic, key, aggregateType, payload.<field> or data.<field>.",
      "destinations.k.topic: the placeholder '{{ source }}' is not allowed in the topic of destination 'k'. An address may use topic, key, aggregateType, payload.<field> or data.<field>.",
    ]);
  });

  it('does not check a template that a *From column replaces, but checks the column', () => {
    expect(
      problemsOf({
        destinations: {
          mq: rabbitDestination({ exchange: '{{ region }}', exchangeFrom: 'aggregate_type' }),
          k: kafkaDestination({ topicFrom: 'aggregateType' as never }),
        },
        routes: [],
      }),
    ).toEqual([
      "destinations.k.topicFrom: the column 'aggregateType' of destination 'k' is not an address column. Use aggregate_type, topic or key.",
    ]);
  });

  it('lets routing-key templates use any placeholder', () => {
    expect(
      problemsOf({
        destinations: { mq: rabbitDestination({ routingKeyTemplate: '{{ region }}' }) },
        routes: [route('**', 'mq', { routingKeyTemplate: '{{ anything }}' })],
      }),
    ).toEqual([]);
  });

  it('requires a publisher for every destination type when the types are given', () => {
    const config = {
      destinations: { h: httpDestination(), k: kafkaDestination() },
      routes: [route('**', 'h')],
    };
    expect(problemsOf(config)).toEqual([]);
    expect(problemsOf(config, ['http'])).toEqual([
      "destinations.k: no publisher supports destination 'k' of type 'kafka'",
    ]);
  });

  it('reports a bad topic pattern and an unknown destination', () => {
    expect(
      problemsOf({
        destinations: { a: httpDestination() },
        routes: [route('order.***', 'a'), route('  ', 'a'), route('**', 'missing')],
      }),
    ).toEqual([
      "routes[0].topicPattern: The topic pattern 'order.***' contains '***'. Use '**' for any text or '*' for one segment.",
      'routes[1].topicPattern: A topic pattern must not be blank.',
      "routes[2].destination: the destination 'missing' is not configured",
    ]);
  });

  it('collects every problem into one config_invalid error', () => {
    let thrown: unknown;
    try {
      validateRouting(
        {
          destinations: {
            a: httpDestination({ transform: transform('$$$(') }),
            mq: rabbitDestination({ exchange: '{{ region }}' }),
          },
          routes: [route('**', 'a', { transform: transform('[') })],
        },
        transformer,
        { publisherTypes: ['http'], addressRules: brokerAddressRules },
      );
    } catch (error: unknown) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(RoutingConfigError);
    const error = thrown as RoutingConfigError;
    expect(error.code).toBe('config_invalid');
    expect(error.problems).toHaveLength(4);
    expect(error.message.split('\n')[0]).toBe(
      'The routing configuration has 4 errors. Fix each one and start QueueBox again.',
    );
    expect(error.message).toContain(
      '  - destinations.a.transform.expression: the JSONata expression does not compile: ',
    );
    expect(error.message).toContain(
      "  - destinations.mq: no publisher supports destination 'mq' of type 'rabbitmq'",
    );
    expect(error.message).toContain(
      '  - routes[0].transform.expression: the JSONata expression does not compile: ',
    );
  });
});
