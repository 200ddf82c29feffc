import type { Json } from '@queuebox/core';

/**
 * The messages between the admin transform test's worker process and the service (see
 * transform-sandbox.ts). One request at a time per worker; `id` pairs an answer with its request.
 */
export interface WorkerRequest {
  readonly id: number;
  readonly expression: string;
  readonly payload: Json;
  readonly bindings: Record<string, Json>;
  readonly timeoutMs: number;
  readonly maxDepth: number;
  readonly maxResultBytes: number;
}

export type WorkerAnswer =
  | { readonly kind: 'ready' }
  /** The expression does not compile. */
  | { readonly id: number; readonly kind: 'invalid'; readonly reason: string }
  /** The evaluation failed: an error it raised, or one of the engine's limits. */
  | { readonly id: number; readonly kind: 'failed'; readonly reason: string }
  /** The result as JSON text, so the process never parses or re-serializes it. */
  | { readonly id: number; readonly kind: 'result'; readonly json: string };
