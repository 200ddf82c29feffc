/**
 * Core's `Tracing` port on the OpenTelemetry JS SDK: one tracer provider, a batch span processor
 * and the OTLP/HTTP exporter of the configured protocol (protobuf or JSON), which reads its
 * endpoint, headers and timeout from the standard variables itself. Loaded only by tracing.ts's
 * dynamic import, so nothing here runs, or is even loaded, while tracing is off.
 *
 * The context travels explicitly, from a message's headers to the span and from the span to the
 * next headers: no global context manager, no global tracer provider, no instrumentation of
 * other libraries (the database driver's queries and the publishers' sockets are not spans).
 */
import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Span,
  type TextMapGetter,
  type TextMapSetter,
} from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter as JsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import {
  detectResources,
  envDetector,
  resourceFromAttributes,
  serviceNameEnvDetector,
} from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  TracerProvider,
  type Sampler,
} from '@opentelemetry/sdk-trace';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import {
  sanitize,
  traceHeaderValue,
  type HeaderEntry,
  type Headers,
  type TraceAttributes,
  type TraceSpan,
  type TraceSpanKind,
  type Tracing,
} from '@queuebox/core';
import type { SamplerName, TraceSettings } from './tracing.js';

/** Longest wait for the last export at shutdown. */
const CLOSE_TIMEOUT_MS = 5000;

const KINDS: Readonly<Record<TraceSpanKind, SpanKind>> = {
  internal: SpanKind.INTERNAL,
  server: SpanKind.SERVER,
  client: SpanKind.CLIENT,
  producer: SpanKind.PRODUCER,
  consumer: SpanKind.CONSUMER,
};

const getter: TextMapGetter<Headers> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => traceHeaderValue(carrier, key),
};

const setter: TextMapSetter<HeaderEntry[]> = {
  set: (carrier, key, value) => {
    carrier.push([key, value]);
  },
};

export function createSdkTracing(settings: TraceSettings): Tracing {
  const resource = resourceFromAttributes({
    [ATTR_SERVICE_NAME]: 'queuebox',
    [ATTR_SERVICE_VERSION]: settings.version,
  }).merge(detectResources({ detectors: [envDetector, serviceNameEnvDetector] }));
  const exporter =
    settings.protocol === 'http/json' ? new JsonTraceExporter() : new ProtobufTraceExporter();
  const provider = new TracerProvider({
    resource,
    sampler: samplerOf(settings.sampler, settings.ratio),
    spanProcessors: [new BatchSpanProcessor({ exporter, ...settings.batch })],
  });
  const tracer = provider.getTracer('queuebox', settings.version);
  const propagator = new W3CTraceContextPropagator();

  class SdkSpan implements TraceSpan {
    #headers: readonly HeaderEntry[] | null = null;

    constructor(private readonly span: Span) {}

    setAttributes(attributes: TraceAttributes): void {
      this.span.setAttributes(attributes);
    }

    addEvent(name: string, attributes?: TraceAttributes): void {
      this.span.addEvent(name, attributes);
    }

    contextHeaders(): readonly HeaderEntry[] {
      if (this.#headers === null) {
        const carrier: HeaderEntry[] = [];
        propagator.inject(trace.setSpan(ROOT_CONTEXT, this.span), carrier, setter);
        this.#headers = carrier;
      }
      return this.#headers;
    }

    fail(text: string): void {
      // Every failure text passes the sanitizer, as in the logs (spec §16.4).
      this.span.setStatus({ code: SpanStatusCode.ERROR, message: sanitize(text) });
    }

    end(): void {
      this.span.end();
    }
  }

  return {
    startSpan(name, kind, parent, attributes) {
      const context =
        parent === null ? ROOT_CONTEXT : propagator.extract(ROOT_CONTEXT, parent, getter);
      return new SdkSpan(tracer.startSpan(name, { kind: KINDS[kind], attributes }, context));
    },
    async close() {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        provider.shutdown(),
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, CLOSE_TIMEOUT_MS);
        }),
      ]).finally(() => clearTimeout(timer));
    },
  };
}

function samplerOf(name: SamplerName, ratio: number): Sampler {
  switch (name) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return new TraceIdRatioBasedSampler(ratio);
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio) });
  }
}
