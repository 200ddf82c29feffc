import { sanitizeError, type Logger } from '@queuebox/core';
import type { RequestDrain } from '../http/drain.js';
import type { RunningServer } from '../http/server.js';

const DRAIN_MS = 5000;
const SERVER_GRACE_MS = 5000;

type Stop = () => Promise<void> | void;

/**
 * The SIGTERM sequence of spec §17.2: HTTP first (drain, then close the servers), then the
 * background services, then the resources. Every stop is isolated: a failure is logged and the
 * next stop still runs, so one stuck part never keeps the pool or a broker connection open.
 */
export class ShutdownSequence {
  readonly #logger: Logger;
  #httpStop: Stop | undefined;
  readonly #services: { name: string; stop: Stop }[] = [];
  readonly #resources: { name: string; stop: Stop }[] = [];
  readonly #last: { name: string; stop: Stop }[] = [];
  #running: Promise<void> | undefined;

  constructor(logger: Logger) {
    this.#logger = logger;
  }

  http(drain: RequestDrain, servers: readonly RunningServer[], shutdownTimeoutMs: number): void {
    this.#httpStop = async () => {
      const remaining = await drain.drain(DRAIN_MS);
      if (remaining > 0) {
        this.#logger.warn(
          `${remaining} HTTP request(s) were still running after ${DRAIN_MS} ms of draining.`,
        );
      }
      const timeout = Math.max(shutdownTimeoutMs, DRAIN_MS);
      await Promise.all(servers.map((server) => server.close(SERVER_GRACE_MS, timeout)));
    };
  }

  /** Background services stop in the order they are added. */
  service(name: string, stop: Stop): void {
    this.#services.push({ name, stop });
  }

  /** Resources close last, in the order they are added. */
  resource(name: string, stop: Stop): void {
    this.#resources.push({ name, stop });
  }

  /** Stopped last of all, after the resources: the trace exporter sends the spans of the rest. */
  finally(name: string, stop: Stop): void {
    this.#last.push({ name, stop });
  }

  run(): Promise<void> {
    this.#running ??= this.#sequence();
    return this.#running;
  }

  async #sequence(): Promise<void> {
    this.#logger.info('Shutting down QueueBox...');
    if (this.#httpStop) await this.#isolated('the HTTP servers', this.#httpStop);
    for (const { name, stop } of this.#services) await this.#isolated(name, stop);
    for (const { name, stop } of this.#resources) await this.#isolated(name, stop);
    for (const { name, stop } of this.#last) await this.#isolated(name, stop);
    this.#logger.info('Shutdown complete');
  }

  async #isolated(name: string, stop: Stop): Promise<void> {
    try {
      await stop();
    } catch (error: unknown) {
      this.#logger.error(`Stopping ${name} failed. Reason: ${sanitizeError(error)}`);
    }
  }
}
