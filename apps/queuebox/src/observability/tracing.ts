/**
 * Tracing's switch and settings, read from the standard OpenTelemetry variables. It imports no
 * OpenTelemetry module: the SDK (tracing-sdk.ts) is loaded by a dynamic import only when
 * `OTEL_TRACES_EXPORTER=otlp`, so a QueueBox that does not trace loads none of it and its
 * services hold no `Tracing` at all.
 *
 * Off by default, unlike the SDK's own default of `otlp`: the reference does not trace, and
 * an operator who did not ask for traces must not find QueueBox dialling localhost:4318.
 * The variables the exporter reads itself (`OTEL_EXPORTER_OTLP_ENDPOINT`,
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, `..._HEADERS`, `..._TIMEOUT`, `..._COMPRESSION`) are left
 * to it; the ones it does not read (the protocol, the sampler, the batch settings) are read
 * and checked here, and a bad value stops the start naming the variable.
 */
import { QueueBoxError, type Tracing } from '@queuebox/core';

export type TraceEnv = Readonly<Record<string, string | undefined>>;

export type TraceProtocol = 'http/protobuf' | 'http/json';

export type SamplerName =
  | 'always_on'
  | 'always_off'
  | 'traceidratio'
  | 'parentbased_always_on'
  | 'parentbased_always_off'
  | 'parentbased_traceidratio';

export interface TraceSettings {
  readonly protocol: TraceProtocol;
  readonly sampler: SamplerName;
  /** `OTEL_TRACES_SAMPLER_ARG` for the ratio samplers; 1.0 by default. */
  readonly ratio: number;
  readonly batch: {
    readonly scheduledDelayMillis: number;
    readonly maxQueueSize: number;
    readonly maxExportBatchSize: number;
    readonly exportTimeoutMillis: number;
  };
  readonly version: string;
}

const SAMPLERS: readonly SamplerName[] = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
];

/** The tracing settings, or null when tracing is off; throws `config_invalid` naming the variable. */
export function traceSettings(env: TraceEnv, version: string): TraceSettings | null {
  const exporter = value(env, 'OTEL_TRACES_EXPORTER')?.toLowerCase() ?? 'none';
  if (exporter === 'none') return null;
  if (exporter !== 'otlp') {
    throw invalid(
      `OTEL_TRACES_EXPORTER: '${exporter}' is not an exporter QueueBox has; use otlp (traces to an OTLP/HTTP collector) or none (the default)`,
    );
  }
  const protocolName =
    value(env, 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL') === undefined
      ? 'OTEL_EXPORTER_OTLP_PROTOCOL'
      : 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL';
  const protocol = value(env, protocolName) ?? 'http/protobuf';
  if (protocol !== 'http/protobuf' && protocol !== 'http/json') {
    throw invalid(
      `${protocolName}: '${protocol}' is not supported; use http/protobuf (the default) or http/json`,
    );
  }
  const samplerText = value(env, 'OTEL_TRACES_SAMPLER')?.toLowerCase() ?? 'parentbased_always_on';
  const sampler = SAMPLERS.find((name) => name === samplerText);
  if (sampler === undefined) {
    throw invalid(
      `OTEL_TRACES_SAMPLER: '${samplerText}' is not a sampler; use one of ${SAMPLERS.join(', ')}`,
    );
  }
  const ratio = number(env, 'OTEL_TRACES_SAMPLER_ARG', 1, 0, 1);
  const maxQueueSize = number(env, 'OTEL_BSP_MAX_QUEUE_SIZE', 2048, 1);
  return {
    protocol,
    sampler,
    ratio,
    batch: {
      scheduledDelayMillis: number(env, 'OTEL_BSP_SCHEDULE_DELAY', 5000, 0),
      maxQueueSize,
      maxExportBatchSize: Math.min(
        maxQueueSize,
        number(env, 'OTEL_BSP_MAX_EXPORT_BATCH_SIZE', 512, 1),
      ),
      exportTimeoutMillis: number(env, 'OTEL_BSP_EXPORT_TIMEOUT', 30_000, 1),
    },
    version,
  };
}

/** Tracing when `OTEL_TRACES_EXPORTER=otlp`, else undefined (and no SDK module loaded). */
export async function startTracing(env: TraceEnv, version: string): Promise<Tracing | undefined> {
  const settings = traceSettings(env, version);
  if (settings === null) return undefined;
  const sdk = await import('./tracing-sdk.js');
  return sdk.createSdkTracing(settings);
}

function value(env: TraceEnv, name: string): string | undefined {
  const text = env[name]?.trim();
  return text === undefined || text === '' ? undefined : text;
}

function number(env: TraceEnv, name: string, fallback: number, min: number, max?: number): number {
  const text = value(env, name);
  if (text === undefined) return fallback;
  const parsed = Number(text);
  if (!Number.isFinite(parsed) || parsed < min || (max !== undefined && parsed > max)) {
    const range = max === undefined ? `at least ${min}` : `from ${min} to ${max}`;
    throw invalid(`${name}: '${text}' is not a number ${range}`);
  }
  return parsed;
}

function invalid(message: string): QueueBoxError {
  return new QueueBoxError('config_invalid', message);
}
