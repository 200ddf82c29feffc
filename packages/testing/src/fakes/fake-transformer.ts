/**
 * A test-only stand-in for the JSONata engine (which lives in outbox-service and is injected by
 * the app): each known expression text maps to a function. It honours the port's contract, not
 * JSONata: an unknown text does not compile, a thrown error is a failed evaluation, `undefined`
 * (JSONata's "no result") comes back as JSON null.
 */
import type { Json, TransformBindings, TransformLimits, Transformer } from '@queuebox/core';

export type FakeExpression = (
  input: Json,
  bindings: TransformBindings,
) => Json | undefined | Promise<Json | undefined>;

export interface FakeTransformer extends Transformer {
  /** Every compile call, in order: what the code under test asked for and with which limits. */
  readonly compiled: { readonly expression: string; readonly limits: TransformLimits }[];
  /** The bindings of every evaluation, in order. */
  readonly evaluations: {
    readonly expression: string;
    readonly input: Json;
    readonly bindings: TransformBindings;
  }[];
}

export function fakeTransformer(expressions: Record<string, FakeExpression>): FakeTransformer {
  const compiled: FakeTransformer['compiled'] = [];
  const evaluations: FakeTransformer['evaluations'] = [];
  return {
    compiled,
    evaluations,
    compile(expression, limits) {
      const fn = expressions[expression];
      if (fn === undefined)
        throw new Error(`Syntax error: unknown fake expression '${expression}'`);
      compiled.push({ expression, limits });
      return {
        async evaluate(input, bindings) {
          evaluations.push({ expression, input, bindings });
          try {
            const value = await fn(input, bindings);
            return { ok: true, value: value ?? null };
          } catch (error: unknown) {
            return { ok: false, reason: error instanceof Error ? error.message : String(error) };
          }
        },
      };
    },
  };
}
