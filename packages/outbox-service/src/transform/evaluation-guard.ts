/**
 * Timeout and depth limits for JSONata evaluations (spec §5.4, open question 8).
 *
 * The `jsonata` package evaluates through async functions whose awaits resolve as microtasks, so a
 * runaway expression never yields to timers or sockets on its own: an infinite loop would freeze
 * the whole process. The package calls the `__evaluate_entry` hook (looked up under
 * `Symbol.for('jsonata.__evaluate_entry')`) and awaits its result before every evaluation step,
 * including each call of a lambda inside `$reduce`/`$map` and each turn of its tail-call loop. The
 * guard uses that hook, like the "timeboxExpression" pattern of the JSONata docs, to
 *  - fail the evaluation once it ran longer than `timeoutMs` (wall clock, like the reference),
 *  - fail it once it nests deeper than `maxDepth` evaluation steps, and
 *  - hand the event loop back every few milliseconds (a macrotask yield), so timers, I/O and the
 *    other in-flight messages keep running while a slow expression works towards its timeout.
 *
 * Depth is read from jsonata's own per-evaluation counter (`environment.base.depth`, kept since
 * 2.2 for its built-in guardrails) instead of counting in an `__evaluate_exit` hook: the package
 * awaits every hook it finds, and a second await per step costs a large share of the throughput
 * of a typical transform. `jsonata-transformer.test.ts` pins that the counter is there.
 *
 * One native step (building a 10-million-element range, sorting a huge array) cannot be
 * interrupted; the check runs right after it.
 */
import type { TransformLimits } from '@queuebox/core';

const ENTRY_HOOK = Symbol.for('jsonata.__evaluate_entry');

/** Variable under which each evaluation carries its guard; the hook reads it from the root frame. */
export const GUARD_BINDING = '__queuebox_guard';

/** Continuous evaluation time after which the guard lets other work run. */
const YIELD_SLICE_MS = 10;

/** The reason an evaluation that ran past `timeoutMs` fails with (also when it is stopped from outside). */
export function evaluationTimeoutReason(timeoutMs: number): string {
  return `Expression evaluation timeout after ${timeoutMs} ms: Check for infinite loop.`;
}

/** The evaluation broke a limit; the message is the reason a row or a response shows. */
export class TransformLimitError extends Error {
  override readonly name = 'TransformLimitError';
}

/** One evaluation's budget. Private fields keep it an empty object if an expression reads it. */
export class EvaluationGuard {
  readonly #timeoutMs: number;
  readonly #maxDepth: number;
  readonly #startedAt: number;
  #lastYieldAt: number;
  #failure: TransformLimitError | null = null;

  constructor(limits: TransformLimits) {
    this.#timeoutMs = limits.timeoutMs;
    this.#maxDepth = limits.maxDepth;
    this.#startedAt = performance.now();
    this.#lastYieldAt = this.#startedAt;
  }

  /** Throws when a limit is broken; returns a promise when the evaluation should yield first. */
  check(depth: number): Promise<void> | undefined {
    // Sticky: should anything inside jsonata swallow the first throw, every later step fails too.
    if (this.#failure !== null) throw this.#failure;
    if (depth > this.#maxDepth) {
      this.fail(
        `Stack overflow error: the evaluation went deeper than maxDepth ${this.#maxDepth}. ` +
          'Check for non-terminating recursive function. Consider rewriting as tail-recursive.',
      );
    }
    const now = performance.now();
    if (now - this.#startedAt > this.#timeoutMs)
      this.fail(evaluationTimeoutReason(this.#timeoutMs));
    if (now - this.#lastYieldAt < YIELD_SLICE_MS) return undefined;
    this.#lastYieldAt = now;
    // setImmediate, not a resolved promise: only a macrotask lets timers and sockets run.
    return new Promise<void>((resolve) => setImmediate(resolve));
  }

  private fail(reason: string): never {
    this.#failure = new TransformLimitError(reason);
    throw this.#failure;
  }
}

/** The slice of jsonata's internal frame the hook reads. */
interface EvaluationFrame {
  readonly base?: { readonly depth?: unknown; lookup(name: string): unknown };
}

function onEvaluateEntry(
  _node: unknown,
  _input: unknown,
  environment: EvaluationFrame,
): Promise<void> | undefined {
  const root = environment.base;
  if (root === undefined) return undefined;
  const guard = root.lookup(GUARD_BINDING);
  if (!(guard instanceof EvaluationGuard)) return undefined;
  return guard.check(typeof root.depth === 'number' ? root.depth : 0);
}

/** The part of a compiled jsonata expression that binds into its static frame. */
interface Assignable {
  assign(name: string, value: unknown): void;
}

/**
 * Installs the hook once per compiled expression. It holds no state of its own, so concurrent
 * evaluations of one cached expression each follow their own guard.
 */
export function installEvaluationGuard(expression: Assignable): void {
  // The typings say `string`, but the frame stores any property key and the package looks the
  // hook up by this symbol.
  expression.assign(ENTRY_HOOK as unknown as string, onEvaluateEntry);
}
