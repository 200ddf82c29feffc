/**
 * A `Tracing` that records its spans in memory (dev only): what a service started, with which
 * parent headers, attributes, events, failure texts, and whether it ended. Each span's context is
 * a made-up `traceparent` naming the span by its index, so a test can follow it onto the wire.
 */
import type {
  HeaderEntry,
  Headers,
  TraceAttributes,
  TraceSpan,
  TraceSpanKind,
  Tracing,
} from '@queuebox/core';

export interface RecordedSpan {
  readonly name: string;
  readonly kind: TraceSpanKind;
  readonly parent: Headers | null;
  readonly attributes: Record<string, string | number | boolean>;
  readonly events: { name: string; attributes: TraceAttributes | undefined }[];
  readonly failures: string[];
  readonly traceparent: string;
  ended: boolean;
}

export class RecordingTracing implements Tracing {
  readonly spans: RecordedSpan[] = [];
  closed = false;

  startSpan(
    name: string,
    kind: TraceSpanKind,
    parent: Headers | null,
    attributes: TraceAttributes,
  ): TraceSpan {
    const index = this.spans.length + 1;
    const recorded: RecordedSpan = {
      name,
      kind,
      parent: parent === null ? null : { ...parent },
      attributes: { ...attributes },
      events: [],
      failures: [],
      traceparent: `00-${'a'.repeat(32)}-${index.toString(16).padStart(16, '0')}-01`,
      ended: false,
    };
    this.spans.push(recorded);
    return {
      setAttributes: (more) => Object.assign(recorded.attributes, more),
      addEvent: (event, eventAttributes) =>
        recorded.events.push({ name: event, attributes: eventAttributes }),
      contextHeaders: (): readonly HeaderEntry[] => [['traceparent', recorded.traceparent]],
      fail: (text) => recorded.failures.push(text),
      end: () => {
        recorded.ended = true;
      },
    };
  }

  close(): Promise<void> {
    this.closed = true;
    return Promise.resolve();
  }
}
