/**
 * The relay's `forward <source>` span for one inbox row: its parent is the trace context stored
 * in the row (the receive span's, or a pull row's sender's), and the outbox row it writes
 * carries the forward span's context in place of any other, so the outbox's publish span is its
 * child. Kind producer: writing the outbox row creates the message that is published next.
 */
import {
  withTraceContext,
  type RelayClaimedMessage,
  type RelayForward,
  type TraceSpan,
  type Tracing,
} from '@queuebox/core';

export function tracedForward(
  tracing: Tracing,
  message: RelayClaimedMessage,
  forward: RelayForward,
): { message: RelayClaimedMessage; forward: RelayForward; span: TraceSpan } {
  const attributes: Record<string, string> = {
    'messaging.system': 'queuebox',
    'messaging.operation.type': 'create',
    'messaging.operation.name': 'forward',
    'messaging.destination.name': forward.outbox.topic,
    'queuebox.inbox.id': message.id,
    'queuebox.source': message.source,
  };
  if (forward.outbox.id !== undefined) attributes['messaging.message.id'] = forward.outbox.id;
  const span = tracing.startSpan(
    `forward ${message.source}`,
    'producer',
    message.headers,
    attributes,
  );
  const headers = withTraceContext(forward.outbox.headers ?? {}, span.contextHeaders());
  return { message, forward: { ...forward, outbox: { ...forward.outbox, headers } }, span };
}

export function endForwardSpan(
  span: TraceSpan,
  outcome: 'forwarded' | 'lost' | 'failed',
  reason?: string,
): void {
  span.setAttributes({ 'queuebox.outcome': outcome });
  if (reason !== undefined) span.fail(reason);
  span.end();
}
