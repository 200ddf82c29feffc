/**
 * The things an end-to-end test opens most, each onto a scratch that closes it: a fresh
 * database, a real HTTP sink, a fault proxy, the real service in this process, the built app's processes.
 */
import {
  createFreshDatabase,
  startFaultProxy,
  startHttpSink,
  type FaultProxy,
  type FreshDatabase,
  type HttpSink,
  type SinkHandler,
} from '@queuebox/testing';
import type { Logger } from '@queuebox/core';
import type { ProviderRegistry } from '../src/providers.js';
import type { QueueBoxProcess } from './process.js';
import type { Scratch } from './scratch.js';
import { startTestService } from './service.js';

export type TestService = Awaited<ReturnType<typeof startTestService>>;

/** A fresh database named `<prefix>_<random>`, dropped with the scratch. */
export const openDatabase = (scratch: Scratch, pgUrl: string, prefix?: string) =>
  scratch.open(createFreshDatabase(pgUrl, prefix), (db) => db.drop());

/** A TCP fault proxy to `target`, closed with the scratch. */
export const openProxy = (
  scratch: Scratch,
  target: { readonly host: string; readonly port: number },
): Promise<FaultProxy> => scratch.open(startFaultProxy({ target }), (proxy) => proxy.close());

export const openSink = (scratch: Scratch, handler?: SinkHandler): Promise<HttpSink> =>
  scratch.open(startHttpSink(handler), (sink) => sink.close());

/** The service on `db` with `yaml` and `env`, stopped with the scratch. */
export const openService = (
  scratch: Scratch,
  db: FreshDatabase,
  yaml: string,
  env: Record<string, string> = {},
  with_: { readonly logger?: Logger; readonly providers?: ProviderRegistry } = {},
): Promise<TestService> =>
  scratch.open(startTestService(db, yaml, env, with_.logger, with_.providers), (service) =>
    service.stop(),
  );

/**
 * A list a file pushes the QueueBox processes it starts onto: what still runs when the scratch
 * is emptied (a test that failed before stopping it) is killed. Take it after what the
 * processes use (their database, their sinks), so they are killed before those close.
 */
export function runningProcesses(scratch: Scratch): QueueBoxProcess[] {
  const running: QueueBoxProcess[] = [];
  scratch.defer(() => {
    for (const qb of running) if (qb.child.exitCode === null) qb.child.kill('SIGKILL');
  });
  return running;
}
