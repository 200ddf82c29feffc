/**
 * One attribute's extraction chain (spec §7.2): an ordered list of places to read the value
 * from (a header, a key expression, JSONPaths), tried until one gives a value. The HTTP source
 * and the broker sources order the steps differently and add their own fallbacks, so the order
 * is the caller's; reading and converting are the same for all.
 *
 * Everything is compiled at start: a path or expression that does not compile stops the start
 * and names its configuration key.
 */
import {
  JsonPathError,
  QueueBoxError,
  compileConfigured,
  parseJsonPath,
  sanitize,
  toError,
  type Json,
  type JsonPathSegments,
  type Logger,
  type TransformLimits,
  type Transformer,
} from '@queuebox/core';
import type { HeaderLookup } from '../auth/auth-validator.js';
import { attributeValue, pathValue } from './attribute-value.js';

/** Key expressions run under fixed limits (spec §19.3), unlike transforms, which configure theirs. */
export const KEY_EXPRESSION_LIMITS: TransformLimits = { timeoutMs: 100, maxDepth: 100 };

export type AttributeStep =
  | { readonly kind: 'header'; readonly name: string }
  /** `keyPath` is the configuration key, e.g. `sources.stripe.idempotencyKeyExpression`. */
  | { readonly kind: 'expression'; readonly expression: string; readonly keyPath: string }
  /** Paths tried in order; `keyPath` as above, e.g. `sources.stripe.idempotencyKeyPath`. */
  | { readonly kind: 'paths'; readonly paths: readonly string[]; readonly keyPath: string };

/** A received message as the chain reads it: the ORIGINAL body (before any transform) and its headers. */
export interface AttributeMessage {
  /** The parsed body, which expressions and paths read. */
  readonly body: Json;
  /** The body's JSON text, which a path reads a big number from (every digit as written). */
  readonly text: string;
  readonly header: HeaderLookup;
}

export interface AttributeChain {
  /** True when no step is configured. */
  readonly isEmpty: boolean;
  /**
   * True when every step reads without waiting (headers and paths, no expression): then
   * `firstNow` and `valuesNow` give the same values as `first` and `values` without a promise.
   */
  readonly sync: boolean;
  /** What the chain tries, for a log line: `header 'Idempotency-Key', expression 'data.id', path '$.id'`. */
  readonly description: string;
  /** The first value any step gives, or null. */
  first(message: AttributeMessage, logger?: Logger): Promise<string | null>;
  /** Every value the steps give, in order, read lazily (publish time skips values that are no time). */
  values(message: AttributeMessage, logger?: Logger): AsyncGenerator<string>;
  /** `first` of a `sync` chain; throws on a chain with an expression. */
  firstNow(message: AttributeMessage, logger?: Logger): string | null;
  /** `values` of a `sync` chain; throws on a chain with an expression. */
  valuesNow(message: AttributeMessage, logger?: Logger): Generator<string>;
}

export interface AttributeChainContext {
  /** The source name, for the WARN of a failed expression. */
  readonly source: string;
  readonly transformer: Transformer;
  readonly logger: Logger;
}

type StepReader = (
  message: AttributeMessage,
  logger: Logger,
) => string | null | Promise<string | null>;

interface CompiledStep {
  readonly description: string;
  readonly read: StepReader;
  /** The step reads without waiting (a header, a path). */
  readonly sync: boolean;
}

export function compileAttributeChain(
  steps: readonly AttributeStep[],
  context: AttributeChainContext,
): AttributeChain {
  const compiled = steps.flatMap((step) => compileStep(step, context));
  const sync = compiled.every((step) => step.sync);
  // A broker source reads three chains per message: without an expression they run without the
  // async generator's promises, a large part of the inbox side's own cost per message.
  function* valuesNow(message: AttributeMessage, logger: Logger = context.logger) {
    if (!sync) throw new Error('valuesNow: the chain has a step that waits (an expression).');
    for (const step of compiled) {
      const value = step.read(message, logger) as string | null;
      if (value !== null) yield value;
    }
  }
  const chain: AttributeChain = {
    isEmpty: compiled.length === 0,
    sync,
    firstNow(message, logger = context.logger) {
      if (!sync) throw new Error('firstNow: the chain has a step that waits (an expression).');
      for (const step of compiled) {
        const value = step.read(message, logger) as string | null;
        if (value !== null) return value;
      }
      return null;
    },
    valuesNow,
    description: compiled.map((step) => step.description).join(', '),
    async first(message, logger) {
      for await (const value of chain.values(message, logger)) return value;
      return null;
    },
    async *values(message, logger = context.logger) {
      for (const step of compiled) {
        const value = await step.read(message, logger);
        if (value !== null) yield value;
      }
    },
  };
  return chain;
}

function compileStep(step: AttributeStep, context: AttributeChainContext): CompiledStep[] {
  switch (step.kind) {
    case 'header':
      return [headerStep(step.name)];
    case 'expression':
      return [expressionStep(step.expression, step.keyPath, context)];
    case 'paths':
      // A list keeps its index in the key path only when it has several entries; a single path in
      // the YAML is a list of one after loading, and the operator wrote no index for it.
      return step.paths.map((path, i) =>
        pathStep(path, step.paths.length > 1 ? `${step.keyPath}[${i}]` : step.keyPath),
      );
  }
}

function headerStep(name: string): CompiledStep {
  return {
    description: `header '${name}'`,
    sync: true,
    // Header values are trimmed; an empty one counts as missing.
    read: (message) => {
      const value = message.header(name)?.trim();
      return value === undefined || value === '' ? null : value;
    },
  };
}

function pathStep(path: string, keyPath: string): CompiledStep {
  let segments: JsonPathSegments;
  try {
    segments = parseJsonPath(path);
  } catch (error: unknown) {
    const why =
      error instanceof JsonPathError && error.problem === 'indefinite'
        ? 'is not a definite JSONPath'
        : 'is not a valid JSONPath';
    throw new QueueBoxError(
      'config_invalid',
      `${keyPath}: '${path}' ${why}: ${toError(error).message}`,
      { cause: error },
    );
  }
  return {
    description: `path '${path}'`,
    sync: true,
    read: (message) => pathValue(segments, message),
  };
}

function expressionStep(
  expression: string,
  keyPath: string,
  context: AttributeChainContext,
): CompiledStep {
  const compiled = compileConfigured(
    context.transformer,
    expression,
    KEY_EXPRESSION_LIMITS,
    keyPath,
  );
  return {
    description: `expression '${expression}'`,
    sync: false,
    async read(message, logger) {
      let reason: string;
      try {
        // The expression binds no variables: it sees the body only.
        const outcome = await compiled.evaluate(message.body, {});
        if (outcome.ok) return attributeValue(outcome.value);
        reason = outcome.reason;
      } catch (error: unknown) {
        // The port promises an outcome, but a broken engine must cost one value, not the request.
        reason = toError(error).message;
      }
      logger.warn(
        `The expression ${keyPath} of source '${context.source}' failed, so it gives no value. Reason: ${sanitize(reason)}`,
      );
      return null;
    },
  };
}
