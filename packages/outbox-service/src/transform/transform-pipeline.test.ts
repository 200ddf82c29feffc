import { describe, expect, it } from 'vitest';
import { JsonPayload, type TransformConfig, type TransformOnError } from '@queuebox/core';
import type { RoutingResult } from '../routing/message-router.js';
import { outboxMessage } from '@queuebox/testing';
import { createJsonataTransformer } from './jsonata-transformer.js';
import { compileTransformStage } from './transform-stage.js';
import {
  createTransformPipeline,
  type TransformFailure,
  type TransformFailureStrategy,
} from './transform-pipeline.js';

const transformer = createJsonataTransformer();
const FAILING = '$error("boom password=hunter2")';

function stage(
  expression: string,
  onError: TransformOnError = 'Fail',
  keyPath = 'routes[0].transform.expression',
) {
  const config: TransformConfig = { expression, timeoutMs: 100, maxDepth: 100, onError };
  return compileTransformStage(transformer, config, keyPath);
}

function routing(
  route: ReturnType<typeof stage> | null,
  destination: ReturnType<typeof stage> | null,
): RoutingResult {
  return {
    destination: 'orders',
    destinationType: 'http',
    routeTransform: route,
    destinationTransform: destination,
    routingKey: null,
    address: null,
    addressProblem: null,
  };
}

function pipelineWithFailures() {
  const failures: [TransformFailureStrategy, TransformFailure][] = [];
  const pipeline = createTransformPipeline({
    onTransformFailure: (strategy, failure) => failures.push([strategy, failure]),
  });
  return { pipeline, failures };
}

const message = outboxMessage({ payload: JsonPayload.fromValue({ n: 1 }), attempt: 3 });
const DEST_PATH = 'destinations.orders.transform.expression';

describe('transform pipeline', () => {
  it('passes the stored payload through when no stage is configured', async () => {
    const { pipeline } = pipelineWithFailures();
    expect(await pipeline.run(message, routing(null, null))).toEqual({
      kind: 'success',
      payload: JsonPayload.fromValue({ n: 1 }),
    });
  });

  it('runs the route stage then the destination stage on its output', async () => {
    const { pipeline } = pipelineWithFailures();
    const result = await pipeline.run(
      message,
      routing(stage('{"n": n + 1}'), stage('{"n": n * 10}', 'Fail', DEST_PATH)),
    );
    expect(result).toEqual({ kind: 'success', payload: JsonPayload.fromValue({ n: 20 }) });
  });

  it('binds $messageId, $topic, $attempt and $timestamp from the row', async () => {
    const { pipeline } = pipelineWithFailures();
    const result = await pipeline.run(
      message,
      routing(
        stage('{"id": $messageId, "topic": $topic, "attempt": $attempt, "ts": $timestamp}'),
        null,
      ),
    );
    expect(result).toEqual({
      kind: 'success',
      payload: JsonPayload.fromValue({
        id: message.id,
        topic: 'orders.created',
        attempt: 3,
        ts: '2025-01-02T03:04:05.678Z',
      }),
    });
  });

  it('binds $attempt 0 on a first delivery', async () => {
    const { pipeline } = pipelineWithFailures();
    const result = await pipeline.run(
      outboxMessage({ attempt: 0 }),
      routing(stage('$attempt'), null),
    );
    expect(result).toEqual({ kind: 'success', payload: JsonPayload.fromValue(0) });
  });

  it('Fail returns an error naming the stage, sanitized, and counts fail', async () => {
    const { pipeline, failures } = pipelineWithFailures();
    const result = await pipeline.run(message, routing(stage(FAILING, 'Fail'), null));
    expect(result).toEqual({
      kind: 'error',
      reason: 'routes[0].transform.expression: boom password=[REDACTED]',
    });
    expect(failures).toEqual([
      ['fail', { keyPath: 'routes[0].transform.expression', reason: 'boom password=[REDACTED]' }],
    ]);
  });

  it('Fail on the destination stage stops after the route stage ran', async () => {
    const { pipeline, failures } = pipelineWithFailures();
    const result = await pipeline.run(
      message,
      routing(stage('{"n": 2}'), stage(FAILING, 'Fail', DEST_PATH)),
    );
    expect(result).toMatchObject({
      kind: 'error',
      reason: expect.stringContaining(DEST_PATH) as string,
    });
    expect(failures.map(([s]) => s)).toEqual(['fail']);
  });

  it('Dead returns dead and counts dead', async () => {
    const { pipeline, failures } = pipelineWithFailures();
    expect(await pipeline.run(message, routing(stage(FAILING, 'Dead'), null))).toEqual({
      kind: 'dead',
    });
    expect(await pipeline.run(message, routing(null, stage(FAILING, 'Dead', DEST_PATH)))).toEqual({
      kind: 'dead',
    });
    expect(failures.map(([s]) => s)).toEqual(['dead', 'dead']);
  });

  it('route Skip delivers the stored payload and never runs the destination stage', async () => {
    const { pipeline, failures } = pipelineWithFailures();
    let destinationRan = false;
    const destination = stage('{"changed": true}', 'Fail', DEST_PATH);
    const spy = {
      ...destination,
      evaluate: (...args: Parameters<typeof destination.evaluate>) => {
        destinationRan = true;
        return destination.evaluate(...args);
      },
    };
    const result = await pipeline.run(message, routing(stage(FAILING, 'Skip'), spy));
    expect(result).toEqual({ kind: 'success', payload: JsonPayload.fromValue({ n: 1 }) });
    expect(destinationRan).toBe(false);
    expect(failures.map(([s]) => s)).toEqual(['skip']);
  });

  it('route Skip delivers the stored text as it is, every digit of a big integer included', async () => {
    const { pipeline } = pipelineWithFailures();
    const stored = outboxMessage({ payload: JsonPayload.fromText('{"id": 12345678901234567890}') });
    const result = await pipeline.run(stored, routing(stage(FAILING, 'Skip'), null));
    expect(result).toEqual({ kind: 'success', payload: stored.payload });
    if (result.kind === 'success') expect(result.payload.text).toBe('{"id": 12345678901234567890}');
  });

  it('a stage sees JavaScript numbers: an integer past 2^53 loses its last digits', async () => {
    const { pipeline } = pipelineWithFailures();
    const stored = outboxMessage({ payload: JsonPayload.fromText('{"id": 12345678901234567890}') });
    const result = await pipeline.run(stored, routing(stage('{"id": id}'), null));
    expect(result).toEqual({
      kind: 'success',
      payload: JsonPayload.fromText('{"id":12345678901234567000}'),
    });
  });

  it('destination Skip delivers the route output', async () => {
    const { pipeline, failures } = pipelineWithFailures();
    const result = await pipeline.run(
      message,
      routing(stage('{"n": 99}'), stage(FAILING, 'Skip', DEST_PATH)),
    );
    expect(result).toEqual({ kind: 'success', payload: JsonPayload.fromValue({ n: 99 }) });
    expect(failures).toEqual([
      ['skip', { keyPath: DEST_PATH, reason: 'boom password=[REDACTED]' }],
    ]);
  });

  it('a timeout follows the stage strategy like any other failure', async () => {
    const { pipeline } = pipelineWithFailures();
    const looping = compileTransformStage(
      transformer,
      {
        expression: '($f := function($x) { $f($x) }; $f(0))',
        timeoutMs: 20,
        maxDepth: 100,
        onError: 'Fail',
      },
      'routes[1].transform.expression',
    );
    const result = await pipeline.run(message, routing(looping, null));
    expect(result).toEqual({
      kind: 'error',
      reason:
        'routes[1].transform.expression: Expression evaluation timeout after 20 ms: Check for infinite loop.',
    });
  });

  it('works without a failure listener', async () => {
    const pipeline = createTransformPipeline();
    expect(await pipeline.run(message, routing(stage(FAILING, 'Skip'), null))).toEqual({
      kind: 'success',
      payload: JsonPayload.fromValue({ n: 1 }),
    });
  });
});

describe('compileTransformStage', () => {
  it('names the key path when the expression does not compile', () => {
    expect(() => stage('{"a": ', 'Fail', 'routes[0].transform.expression')).toThrow(
      /^routes\[0\]\.transform\.expression: the JSONata expression does not compile: .+/,
    );
    try {
      stage('((', 'Fail', 'destinations.orders.transform.expression');
    } catch (error: unknown) {
      expect(error).toMatchObject({
        code: 'config_invalid',
        message:
          'destinations.orders.transform.expression: the JSONata expression does not compile: Expected ")" before end of expression (position 2)',
      });
    }
  });

  it('carries the strategy and the key path', () => {
    expect(stage('$', 'Dead', 'routes[3].transform.expression')).toMatchObject({
      onError: 'Dead',
      keyPath: 'routes[3].transform.expression',
    });
  });
});
