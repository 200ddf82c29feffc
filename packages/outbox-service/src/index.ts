/**
 * @queuebox/outbox-service: delivers outbox rows. The poller claims due rows through the
 * OutboxStore port, the router picks one destination per row, JSONata transforms reshape the
 * body, publishers send it, and fenced completions record the outcome. It also owns the
 * transform engine (shared with the inbox through core's Transformer port) and retention.
 * It never talks SQL or a broker protocol itself: those are adapters behind ports.
 */
export * from './transform/jsonata-transformer.js';
export * from './transform/transform-stage.js';
export * from './transform/transform-pipeline.js';
export type * from './routing/routing-plan.js';
export * from './routing/message-router.js';
export * from './routing/routing-validator.js';
export * from './publish/publisher-registry.js';
export * from './http/http-publisher.js';
export * from './http/oauth2-token-manager.js';
export * from './http/private-address.js';
export type { HttpStatusClass } from './http/status-class.js';
export type { AuthHeader } from './http/destination-auth.js';
export * from './metrics/metric-listeners.js';
export * from './poller/outbox-poller.js';
export * from './gate/destination-gates.js';
export { DestinationLimits, destinationLimits } from './limits/destination-limits.js';
export * from './retention/retention-service.js';
export * from './replay/admin-replay.js';
