/**
 * The `receive <source>` span of one webhook or broker message, by the OpenTelemetry messaging
 * semantic conventions: kind server for a webhook, consumer for a broker message. Its parent is
 * the trace context the sender sent; its own context is stored in the inbox row's headers (in
 * place of the sender's), so the relay's forward span and the pull client continue from it.
 *
 * Attributes name the source and the outcome, never a header value, a credential or the body.
 */
import type { DeliveryVerdict, Headers, TraceSpan, TraceSpanKind, Tracing } from '@queuebox/core';

export interface ReceiveAnswer {
  readonly status: number;
  readonly body: Readonly<Record<string, string>>;
}

export function receiveSpan(
  tracing: Tracing,
  system: string,
  kind: TraceSpanKind,
  sourceName: string,
  parent: { readonly traceparent: string | undefined; readonly tracestate: string | undefined },
): TraceSpan {
  const headers: Headers = {};
  if (parent.traceparent !== undefined) headers.traceparent = parent.traceparent;
  if (parent.tracestate !== undefined) headers.tracestate = parent.tracestate;
  return tracing.startSpan(`receive ${sourceName}`, kind, headers, {
    'messaging.system': system,
    'messaging.operation.type': 'receive',
    'messaging.operation.name': 'receive',
    'messaging.destination.name': sourceName,
  });
}

/** The answer as attributes; `null` when the handler threw. */
export function endReceiveSpan(span: TraceSpan, answer: ReceiveAnswer | null): void {
  if (answer === null) {
    span.fail('The message could not be handled');
  } else {
    span.setAttributes({
      'http.response.status_code': answer.status,
      'queuebox.outcome': receiveOutcome(answer),
    });
    const { messageId } = answer.body;
    if (messageId !== undefined) {
      span.setAttributes({ 'messaging.message.id': messageId, 'queuebox.dedup': 'new' });
    } else if (answer.body.status === 'duplicate') {
      span.setAttributes({ 'queuebox.dedup': 'duplicate' });
    }
    if (answer.status >= 500) span.fail(answer.body.error ?? `HTTP ${answer.status}`);
  }
  span.end();
}

function receiveOutcome(answer: ReceiveAnswer): string {
  if (answer.body.messageId !== undefined) return 'stored';
  if (answer.body.status !== undefined) return answer.body.status;
  return answer.status >= 500 ? 'failed' : 'refused';
}

/** A broker delivery's verdict as attributes; `null` when the handler threw. */
export function endBrokerReceiveSpan(span: TraceSpan, verdict: DeliveryVerdict | null): void {
  if (verdict === null) {
    span.fail('The delivery could not be handled');
  } else if (verdict.settle === 'retry') {
    span.setAttributes({ 'queuebox.outcome': 'retry' });
    span.fail(verdict.reason);
  } else {
    span.setAttributes({ 'queuebox.outcome': verdict.outcome });
    if (verdict.outcome === 'stored') span.setAttributes({ 'queuebox.dedup': 'new' });
    else if (verdict.outcome === 'duplicate') span.setAttributes({ 'queuebox.dedup': 'duplicate' });
  }
  span.end();
}
