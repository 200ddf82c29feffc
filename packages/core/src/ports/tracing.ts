import type { HeaderEntry } from '../header-precedence.js';
import type { Headers } from '../model.js';

/**
 * Tracing (OpenTelemetry, W3C trace context) as the services see it. The services never load an
 * SDK: the app injects an implementation when `OTEL_TRACES_EXPORTER=otlp` and nothing at all
 * otherwise, so a service holds `Tracing | undefined` and pays one property check per message
 * when tracing is off.
 *
 * A span's parent is read from a message's headers (`traceparent` and `tracestate`, any letter
 * case), and a span hands its own context on as those headers: into the inbox row a receive
 * span stored, into the outbox row the relay wrote, onto the wire of a publish.
 */

export type TraceSpanKind = 'internal' | 'server' | 'client' | 'producer' | 'consumer';

export type TraceAttributes = Readonly<Record<string, string | number | boolean>>;

export interface TraceSpan {
  setAttributes(attributes: TraceAttributes): void;
  addEvent(name: string, attributes?: TraceAttributes): void;
  /** The W3C headers naming this span as the parent (`traceparent`, and `tracestate` if any). */
  contextHeaders(): readonly HeaderEntry[];
  /** Marks the span failed. The text is sanitized again before it is recorded (spec §16.4). */
  fail(text: string): void;
  end(): void;
}

export interface Tracing {
  /** `parent`: headers that may carry a W3C trace context; none (or an invalid one) starts a trace. */
  startSpan(
    name: string,
    kind: TraceSpanKind,
    parent: Headers | null,
    attributes: TraceAttributes,
  ): TraceSpan;
  /** Exports what is buffered and stops; bounded by the implementation. */
  close(): Promise<void>;
}
