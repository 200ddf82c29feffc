import { describe, expect, it } from 'vitest';
import { startTracing, traceSettings } from './tracing.js';

describe('tracing settings from the OTEL_* variables', () => {
  it('is off without OTEL_TRACES_EXPORTER, with none, and loads nothing then', async () => {
    expect(traceSettings({}, '1')).toBeNull();
    expect(traceSettings({ OTEL_TRACES_EXPORTER: 'none' }, '1')).toBeNull();
    expect(traceSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://x' }, '1')).toBeNull();
    expect(await startTracing({}, '1')).toBeUndefined();
  });

  it('reads the protocol, the sampler and the batch settings', () => {
    expect(traceSettings({ OTEL_TRACES_EXPORTER: 'otlp' }, '1.2')).toEqual({
      protocol: 'http/protobuf',
      sampler: 'parentbased_always_on',
      ratio: 1,
      batch: {
        scheduledDelayMillis: 5000,
        maxQueueSize: 2048,
        maxExportBatchSize: 512,
        exportTimeoutMillis: 30_000,
      },
      version: '1.2',
    });
    expect(
      traceSettings(
        {
          OTEL_TRACES_EXPORTER: 'OTLP',
          OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
          OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
          OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
          OTEL_TRACES_SAMPLER_ARG: '0.25',
          OTEL_BSP_MAX_QUEUE_SIZE: '100',
        },
        '1',
      ),
    ).toMatchObject({
      protocol: 'http/json',
      sampler: 'parentbased_traceidratio',
      ratio: 0.25,
      batch: { maxQueueSize: 100, maxExportBatchSize: 100 },
    });
  });

  it.each([
    [{ OTEL_TRACES_EXPORTER: 'jaeger' }, "OTEL_TRACES_EXPORTER: 'jaeger'"],
    [
      { OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' },
      'OTEL_EXPORTER_OTLP_PROTOCOL',
    ],
    [{ OTEL_TRACES_EXPORTER: 'otlp', OTEL_TRACES_SAMPLER: 'sometimes' }, 'OTEL_TRACES_SAMPLER'],
    [{ OTEL_TRACES_EXPORTER: 'otlp', OTEL_TRACES_SAMPLER_ARG: '2' }, 'OTEL_TRACES_SAMPLER_ARG'],
    [{ OTEL_TRACES_EXPORTER: 'otlp', OTEL_BSP_SCHEDULE_DELAY: 'soon' }, 'OTEL_BSP_SCHEDULE_DELAY'],
  ])('refuses %o naming the variable', (env, named) => {
    expect(() => traceSettings(env, '1')).toThrow(named);
  });
});
