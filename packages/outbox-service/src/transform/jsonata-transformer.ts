/**
 * The JSONata engine behind core's `Transformer` port (spec §5.4). One instance serves the route
 * and destination stages here and, injected by the app, the inbox's source transforms, key
 * expressions and the admin transform test.
 */
import { createRequire } from 'node:module';
import type jsonataType from 'jsonata';
import {
  QueueBoxError,
  type CompiledTransform,
  type Json,
  type TransformBindings,
  type TransformLimits,
  type TransformOutcome,
  type Transformer,
} from '@queuebox/core';
import {
  EvaluationGuard,
  GUARD_BINDING,
  TransformLimitError,
  installEvaluationGuard,
} from './evaluation-guard.js';
import { toJsonOutcome } from './json-result.js';
import { LruCache } from './lru-cache.js';

export { evaluationTimeoutReason } from './evaluation-guard.js';

/**
 * jsonata is loaded on the first compile, not with this module: most configurations have no
 * transform, and the engine's load sat on every start's way to its first delivery. It is CommonJS,
 * so `require` loads it synchronously and `compile` stays synchronous.
 */
const require = createRequire(import.meta.url);
let engine: typeof jsonataType | null = null;
function jsonata(expression: string): jsonataType.Expression {
  engine ??= require('jsonata') as typeof jsonataType;
  return engine(expression);
}

/** Spec §19.3: the compiled-expression cache holds 1 000 entries. */
export const EXPRESSION_CACHE_SIZE = 1000;

export interface JsonataTransformerOptions {
  /** Compiled expressions kept, least recently used evicted first; default 1 000. */
  readonly cacheSize?: number;
}

export interface ExpressionCacheStats {
  readonly size: number;
  readonly hits: number;
  readonly misses: number;
}

export interface JsonataTransformer extends Transformer {
  /** How well the compiled-expression cache works; for tests and diagnostics. */
  cacheStats(): ExpressionCacheStats;
}

export function createJsonataTransformer(
  options: JsonataTransformerOptions = {},
): JsonataTransformer {
  const cache = new LruCache<string, jsonataType.Expression>(
    options.cacheSize ?? EXPRESSION_CACHE_SIZE,
  );
  let hits = 0;
  let misses = 0;

  function compiled(expression: string): jsonataType.Expression {
    const cached = cache.get(expression);
    if (cached !== undefined) {
      hits++;
      return cached;
    }
    misses++;
    let parsed: jsonataType.Expression;
    try {
      parsed = jsonata(expression);
    } catch (error: unknown) {
      // Not cached: an invalid expression (say from the admin test) must not evict a good one.
      throw new QueueBoxError('config_invalid', describeJsonataError(error), { cause: error });
    }
    installEvaluationGuard(parsed);
    cache.set(expression, parsed);
    return parsed;
  }

  return {
    compile(expression: string, limits: TransformLimits): CompiledTransform {
      if (expression.trim() === '') {
        throw new QueueBoxError('config_invalid', 'The expression is blank');
      }
      checkLimits(limits);
      const parsed = compiled(expression);
      return { evaluate: (input, bindings) => evaluateGuarded(parsed, limits, input, bindings) };
    },
    cacheStats: () => ({ size: cache.size, hits, misses }),
  };
}

async function evaluateGuarded(
  parsed: jsonataType.Expression,
  limits: TransformLimits,
  input: Json,
  bindings: TransformBindings,
): Promise<TransformOutcome> {
  const guard = new EvaluationGuard(limits);
  let raw: unknown;
  try {
    raw = await parsed.evaluate(input, { ...bindings, [GUARD_BINDING]: guard });
  } catch (error: unknown) {
    return { ok: false, reason: describeJsonataError(error) };
  }
  return toJsonOutcome(raw);
}

function checkLimits(limits: TransformLimits): void {
  for (const [name, value] of Object.entries(limits)) {
    if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
      throw new QueueBoxError(
        'config_invalid',
        `The transform ${name} must be > 0, got ${String(value)}`,
      );
    }
  }
}

/** jsonata's code for `$error(message)`: the author's own text, reported as written. */
const USER_ERROR_CODE = 'D3137';

/**
 * jsonata throws plain objects `{ code, message, position, token }`, not Errors. The position
 * helps an operator find the spot in a long expression; the guard's own reasons and messages an
 * expression raised with `$error` carry none.
 */
export function describeJsonataError(error: unknown): string {
  if (error instanceof TransformLimitError) return error.message;
  if (typeof error === 'object' && error !== null) {
    const { message, position, code } = error as {
      message?: unknown;
      position?: unknown;
      code?: unknown;
    };
    if (typeof message === 'string' && message !== '') {
      return typeof position === 'number' && position > 0 && code !== USER_ERROR_CODE
        ? `${message} (position ${position})`
        : message;
    }
  }
  return error instanceof Error ? error.message : String(error);
}
