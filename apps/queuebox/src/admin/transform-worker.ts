/**
 * The worker process of the admin transform test (see transform-sandbox.ts). It runs the same
 * JSONata engine as the configured transforms, with the same in-process guard, so every reason
 * it answers is the one that engine gives; the service kills it from outside only when the
 * guard cannot stop an evaluation (one native step) or the heap runs out.
 */
import { createJsonataTransformer } from '@queuebox/outbox-service/jsonata';
import type { WorkerAnswer, WorkerRequest } from './transform-protocol.js';

const send = (answer: WorkerAnswer): void => {
  process.send?.(answer);
};

// The admin test compiles what an operator types: a small cache is plenty.
const transformer = createJsonataTransformer({ cacheSize: 50 });

async function answer(request: WorkerRequest): Promise<WorkerAnswer> {
  const { id } = request;
  let compiled;
  try {
    compiled = transformer.compile(request.expression, {
      timeoutMs: request.timeoutMs,
      maxDepth: request.maxDepth,
    });
  } catch (error: unknown) {
    return { id, kind: 'invalid', reason: error instanceof Error ? error.message : String(error) };
  }
  const outcome = await compiled.evaluate(request.payload, request.bindings);
  if (!outcome.ok) return { id, kind: 'failed', reason: outcome.reason };
  let json: string;
  try {
    json = JSON.stringify(outcome.value);
  } catch {
    return {
      id,
      kind: 'failed',
      reason: 'The transform result is nested too deeply to convert to JSON',
    };
  }
  if (Buffer.byteLength(json) > request.maxResultBytes) {
    return {
      id,
      kind: 'failed',
      reason: `The transform result is larger than ${request.maxResultBytes} bytes of JSON`,
    };
  }
  return { id, kind: 'result', json };
}

if (process.send === undefined) throw new Error('transform-worker.js runs only as a forked worker');
process.on('message', (request: WorkerRequest) => {
  void answer(request).then(send);
});
// The service is gone (or closed the channel): nothing is left to answer.
process.on('disconnect', () => process.exit(0));
// Ready means warm: the engine loads (it loads on its first compile) and runs once here, not
// inside the first request's deadline (timeoutMs plus a short grace), which that cold start
// overran on a busy machine and so failed a trivial request with the timeout reason.
await createJsonataTransformer({ cacheSize: 1 })
  .compile('$string($count([1, 2]) + 1)', { timeoutMs: 60_000, maxDepth: 10 })
  .evaluate({}, {});
send({ kind: 'ready' });
