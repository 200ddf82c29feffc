import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Json } from '@queuebox/core';
import { evaluationTimeoutReason } from '@queuebox/outbox-service';
import type { WorkerAnswer, WorkerRequest } from './transform-protocol.js';

/**
 * Where the admin transform test evaluates (spec §11.6): one warm worker process with a bounded
 * heap, so an expression an operator sends can neither stall the service nor exhaust its memory.
 *
 * The in-process guard of the JSONata engine stops an evaluation at its limit only between steps;
 * one native step (`$string([1..1e7])` built and printed a 10-million-element range) ran seconds
 * past its limit with every delivery and webhook of the process waiting, and left the process's
 * memory swollen. In the worker the same engine and guard still answer first whenever they can,
 * with the same reasons; past `timeoutMs` + a grace the worker is terminated and the answer is the
 * guard's own timeout reason, and a worker that runs out of its heap ends with a memory reason
 * instead of taking the service with it. A killed worker is replaced at once, so the next request
 * finds one warm. Requests run one at a time: the test is an operator's tool, and a kill must never
 * take another request's evaluation with it.
 *
 * A process, not a worker thread: a thread's `resourceLimits` are best effort, and the same
 * `$string([1..1e7])` in a thread limited to 64 MB aborted the whole service ("FATAL ERROR:
 * Reached heap limit", nodejs/node#47224). A process's heap limit ends only that process, and
 * SIGKILL stops it inside any native step. It gets no environment (no credentials) and is ready
 * soon after a fork.
 *
 * The configured route, destination and source transforms do not come here: they keep the
 * in-process guard, because a worker hop per delivery would cost more than the transform.
 */
export interface TransformTestRequest {
  readonly expression: string;
  readonly payload: Json;
  readonly bindings: Record<string, Json>;
  readonly timeoutMs: number;
  readonly maxDepth: number;
}

export type TransformTestOutcome =
  | { readonly kind: 'invalid'; readonly reason: string }
  | { readonly kind: 'failed'; readonly reason: string }
  | { readonly kind: 'result'; readonly json: string };

export interface TransformSandboxOptions {
  /** The worker's old-generation heap, in MB (default 64). */
  readonly memoryMb?: number;
  /** How long past `timeoutMs` the guard may take to answer before the worker is killed. */
  readonly graceMs?: number;
  /** The largest result, in bytes of JSON text (default 1 MiB). */
  readonly maxResultBytes?: number;
  /** How long a new worker may take to load before a request fails (default 30 s). */
  readonly startTimeoutMs?: number;
}

const DEFAULTS = {
  memoryMb: 64,
  graceMs: 100,
  maxResultBytes: 1 << 20,
  startTimeoutMs: 30_000,
} as const;

/** What a worker said, or why it could not. */
type Reply =
  | Exclude<WorkerAnswer, { kind: 'ready' }>
  | { readonly kind: 'deadline' }
  | { readonly kind: 'stopped'; readonly error: Error };

export class TransformSandbox {
  readonly #options: Required<TransformSandboxOptions>;
  #worker: WarmWorker | null = null;
  #queue: Promise<unknown> = Promise.resolve();
  #nextId = 1;
  #closed = false;

  constructor(options: TransformSandboxOptions = {}) {
    this.#options = { ...DEFAULTS, ...options };
    this.#worker = new WarmWorker(this.#options.memoryMb);
  }

  /** Evaluates one request; never throws for anything the expression does. */
  run(request: TransformTestRequest): Promise<TransformTestOutcome> {
    const job = this.#queue.then(() => this.#runNow(request));
    this.#queue = job.catch(() => undefined);
    return job;
  }

  /** Ends the worker (shutdown); a request after this fails. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#queue;
    const worker = this.#worker;
    this.#worker = null;
    await worker?.terminate();
  }

  async #runNow(request: TransformTestRequest): Promise<TransformTestOutcome> {
    if (this.#closed) return { kind: 'failed', reason: 'QueueBox is shutting down' };
    let worker = this.#worker;
    if (worker === null || worker.stopped) worker = this.#replace();
    const started = await worker.ready(this.#options.startTimeoutMs);
    if (started !== null) {
      this.#replace();
      return { kind: 'failed', reason: `The transform test could not start: ${started.message}` };
    }
    const id = this.#nextId++;
    const reply = await worker.evaluate(
      { ...request, id, maxResultBytes: this.#options.maxResultBytes },
      request.timeoutMs + this.#options.graceMs,
    );
    switch (reply.kind) {
      case 'deadline':
        this.#replace();
        return { kind: 'failed', reason: evaluationTimeoutReason(request.timeoutMs) };
      case 'stopped':
        this.#replace();
        return { kind: 'failed', reason: this.#stoppedReason(reply.error) };
      case 'invalid':
        return { kind: 'invalid', reason: reply.reason };
      case 'failed':
        return { kind: 'failed', reason: reply.reason };
      case 'result':
        return { kind: 'result', json: reply.json };
    }
  }

  /** Kills the current worker (if any) without waiting, and starts a warm one. */
  #replace(): WarmWorker {
    void this.#worker?.terminate();
    this.#worker = new WarmWorker(this.#options.memoryMb);
    return this.#worker;
  }

  #stoppedReason(error: Error): string {
    if (error instanceof OutOfMemory) {
      return `Expression evaluation ran out of memory (limit ${this.#options.memoryMb} MB): Check for a huge range or string.`;
    }
    return `The transform test stopped: ${error.message}`;
  }
}

/** One worker process and the request it is working on. */
class WarmWorker {
  readonly #child: ChildProcess;
  readonly #started: Promise<Error | null>;
  #pending: ((reply: Reply) => void) | null = null;
  #stopped: Error | null = null;
  /** The end of the worker's stderr: V8 writes its out-of-memory report there. */
  #stderr = '';

  constructor(memoryMb: number) {
    const { path, execArgv } = workerEntry();
    this.#child = fork(path, [], {
      execArgv: [`--max-old-space-size=${memoryMb}`, ...execArgv],
      // Nothing of the service's environment (database credentials, tokens) reaches it.
      env: {},
      serialization: 'advanced',
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    // A warm worker waiting for work must not keep the service's process alive.
    this.#child.unref();
    this.#child.channel?.unref();
    this.#child.stderr?.setEncoding('utf8');
    this.#child.stderr?.on('data', (chunk: string) => {
      this.#stderr = (this.#stderr + chunk).slice(-4096);
    });
    this.#started = new Promise<Error | null>((resolve) => {
      this.#child.on('message', (message: WorkerAnswer) => {
        if (message.kind === 'ready') resolve(null);
        else this.#settle(message);
      });
      const stop = (error: Error) => {
        this.#stopped ??= error;
        resolve(this.#stopped);
        this.#settle({ kind: 'stopped', error: this.#stopped });
      };
      this.#child.on('error', stop);
      // `close`, not `exit`: it comes after stderr ended, so the out-of-memory report is in.
      this.#child.on('close', (code, signal) => {
        const outOfMemory = /heap out of memory/i.test(this.#stderr);
        stop(
          outOfMemory
            ? new OutOfMemory()
            : new Error(`the worker exited with ${signal ?? `code ${code}`}`),
        );
      });
    });
  }

  get stopped(): boolean {
    return this.#stopped !== null;
  }

  /** Null once the worker is ready; the reason when it stopped or took too long. */
  async ready(timeoutMs: number): Promise<Error | null> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<Error>((resolve) => {
      timer = setTimeout(() => resolve(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      return await Promise.race([this.#started, late]);
    } finally {
      clearTimeout(timer);
    }
  }

  evaluate(request: WorkerRequest, deadlineMs: number): Promise<Reply> {
    return new Promise<Reply>((resolve) => {
      const timer = setTimeout(() => this.#settle({ kind: 'deadline' }), deadlineMs);
      this.#pending = (reply) => {
        clearTimeout(timer);
        resolve(reply);
      };
      if (this.#stopped !== null) this.#settle({ kind: 'stopped', error: this.#stopped });
      else this.#child.send(request);
    });
  }

  /** SIGKILL: it works whatever the worker is doing, a native step included. */
  terminate(): Promise<void> {
    this.#stopped ??= new Error('the worker was stopped');
    if (this.#child.exitCode !== null || this.#child.signalCode !== null) return Promise.resolve();
    return new Promise<void>((resolve) => {
      this.#child.once('exit', () => resolve());
      // The warm worker is unref'd; at shutdown it is often the last handle, and without a ref
      // the process ran out of work before 'exit' arrived: it ended with code 0 in the middle
      // of the shutdown sequence, before "Shutdown complete" and any resource after this one.
      this.#child.ref();
      this.#child.kill('SIGKILL');
    });
  }

  #settle(reply: Reply): void {
    const pending = this.#pending;
    this.#pending = null;
    pending?.(reply);
  }
}

/** The worker's heap ran out (V8 aborts the process and says so on stderr). */
class OutOfMemory extends Error {
  override readonly name = 'OutOfMemory';
}

/**
 * The compiled worker next to this module; from the workspace sources (tests), the TypeScript
 * entry with hooks that strip types as modules load (see worker-source-register.mjs).
 */
function workerEntry(): { path: string; execArgv: string[] } {
  if (import.meta.url.endsWith('.ts')) {
    return {
      path: fileURLToPath(new URL('./transform-worker.ts', import.meta.url)),
      execArgv: ['--import', new URL('./worker-source-register.mjs', import.meta.url).href],
    };
  }
  return { path: fileURLToPath(new URL('./transform-worker.js', import.meta.url)), execArgv: [] };
}
