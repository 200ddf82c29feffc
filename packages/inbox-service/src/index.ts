/**
 * @queuebox/inbox-service: the inbox side of QueueBox. The webhook routes of the HTTP sources
 * (authentication, header filter, key extraction, source transform, store), the inbound auth
 * validator the admin routes share, and the relay. It talks to the database and the transform
 * engine only through core's ports (InboxStore, Transformer) and never opens a server itself:
 * the app mounts the routes on its data port.
 */

// Inbound authentication (§16.1), shared with the admin routes.
export {
  createAuthValidator,
  type AuthResult,
  type AuthValidator,
  type HeaderLookup,
} from './auth/auth-validator.js';
export { CREDENTIAL_HEADERS, neverStoredHeaders } from './auth/credential-headers.js';
export { constantTimeEquals } from './auth/constant-time.js';
// Header filter (§7.3) and attribute extraction (§7.2), reusable by the broker sources.
export {
  compileHeaderFilter,
  PASS_ALL,
  type FilterVerdict,
  type HeaderFilter,
  type LowerCaseHeaderLookup,
} from './filter/header-filter.js';
export {
  compileAttributeChain,
  KEY_EXPRESSION_LIMITS,
  type AttributeChain,
  type AttributeChainContext,
  type AttributeMessage,
  type AttributeStep,
} from './extraction/attribute-chain.js';
export { attributeValue } from './extraction/attribute-value.js';
export { MAX_CORRELATION_ID_LENGTH, receivedCorrelationId } from './extraction/correlation-id.js';
export { parsePublishTime } from './extraction/publish-time.js';
export {
  compileHttpExtraction,
  type HttpAttributes,
  type HttpExtraction,
} from './extraction/http-extraction.js';
// Ingest: source transform, the HTTP pipeline.
export { ReceivedHeaders } from './ingest/received-headers.js';
export {
  createHttpIngest,
  type HttpIngest,
  type HttpIngestDeps,
  type IngestAnswer,
  type IngestRequest,
} from './ingest/http-ingest.js';
export {
  compileSourceTransform,
  sourceBindings,
  type SourceTransform,
} from './ingest/source-transform.js';
// Broker sources (§7.6-§7.8): the DeliveryHandler every broker adapter calls.
export { createBrokerIngest, type BrokerIngestDeps } from './ingest/broker-ingest.js';
export {
  bodyDigest,
  compileBrokerExtraction,
  type BrokerAttributes,
  type BrokerExtraction,
  type BrokerSourceConfig,
} from './extraction/broker-extraction.js';
// HTTP routes (§7.5, §11.3) and the capped body reader the admin routes reuse.
export { inboxRoutes, type InboxRoutesDeps } from './http/inbox-routes.js';
export {
  bodyTooLargeJson,
  readCappedBody,
  readRequestBody,
  type CappedBody,
} from './http/capped-body.js';
export { sourceRoutePath } from './http/route-path.js';
// The relay (§8): forwards due push rows into the outbox in batches.
export { InboxRelay, type InboxRelayOptions } from './relay/inbox-relay.js';
export { RELAY_HEADERS, relayForward, relayHeaders, relayTopic } from './relay/outbox-row.js';
