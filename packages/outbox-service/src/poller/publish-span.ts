/**
 * The `publish <destination>` span of one outbox row, by the OpenTelemetry messaging semantic
 * conventions (kind producer). Its parent is the row's own `traceparent` (an application's
 * trace, or the relay's forward span), and its context is what the publisher sends on.
 *
 * The claim and the terminal write are span events, not spans of their own: the claim is one
 * statement for a whole batch, and the terminal write is group-committed with other rows, so a
 * span per row for either would time the neighbours' work and double the spans exported per
 * message for no more information than a timestamp.
 */
import {
  correlationIdOf,
  type ClaimedOutboxMessage,
  type TraceSpan,
  type Tracing,
} from '@queuebox/core';
import type { RoutingResult } from '../routing/message-router.js';

/** `deferred`: a destination gate (circuit, rate limit) handed the row back unattempted. */
export type TraceOutcome = 'sent' | 'retry' | 'dead' | 'lost' | 'deferred';

export function publishSpan(
  tracing: Tracing,
  message: ClaimedOutboxMessage,
  routing: RoutingResult | null,
): TraceSpan {
  const attributes: Record<string, string | number | boolean> = {
    'messaging.operation.type': 'send',
    'messaging.operation.name': 'publish',
    'messaging.message.id': message.id,
    'queuebox.topic': message.topic,
    'queuebox.attempt': message.attempt,
    'queuebox.max_attempts': message.maxAttempts,
  };
  const correlationId = correlationIdOf(message.headers);
  if (correlationId !== undefined) attributes['messaging.message.conversation_id'] = correlationId;
  if (routing !== null) {
    attributes['messaging.system'] = routing.destinationType;
    attributes['messaging.destination.name'] = routing.destination;
  }
  const span = tracing.startSpan(
    routing === null ? 'publish' : `publish ${routing.destination}`,
    'producer',
    message.headers,
    attributes,
  );
  span.addEvent('queuebox.claim', { 'queuebox.attempt': message.attempt });
  return span;
}

/** The terminal write: `lost` when the fence did not hold (another owner has the row). */
export function traceOutcome(span: TraceSpan, outcome: TraceOutcome): void {
  span.setAttributes({ 'queuebox.outcome': outcome });
  span.addEvent('queuebox.complete', { 'queuebox.outcome': outcome });
}
