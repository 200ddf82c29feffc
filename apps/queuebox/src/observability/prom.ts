import { createRequire } from 'node:module';
import type * as Prom from 'prom-client';

/**
 * The four prom-client classes QueueBox uses, loaded from their own files. prom-client's index
 * also loads its default process metrics (and through them @opentelemetry/api), the push
 * gateway (http, https, zlib) and the cluster aggregator, none of which QueueBox uses: about
 * sixty modules on every start. These are the files the index loads, so the classes are the
 * same ones, and the types are the package's own.
 */
const load = createRequire(import.meta.url);

export const Registry = load('prom-client/lib/registry') as typeof Prom.Registry;
export type Registry = Prom.Registry;
export const Counter = load('prom-client/lib/counter') as typeof Prom.Counter;
export type Counter<T extends string = string> = Prom.Counter<T>;
export const Gauge = load('prom-client/lib/gauge') as typeof Prom.Gauge;
export type Gauge<T extends string = string> = Prom.Gauge<T>;
export const Summary = load('prom-client/lib/summary') as typeof Prom.Summary;
export type Summary<T extends string = string> = Prom.Summary<T>;
export type { CounterConfiguration, GaugeConfiguration } from 'prom-client';
