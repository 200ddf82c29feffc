/**
 * What a failed `sendBatch` means for the rows in it. Every failure takes the retry path of spec
 * §4.5 (a publish outcome carries only its text), but a batch holds the rows of many messages,
 * so the classification decides who fails and what the link does next:
 *
 * - `batch`: the broker or the network failed (connection lost, request timeout, no leader,
 *   authentication): every row of the batch fails with the same text.
 * - `topic`: the broker refused a topic (unknown without auto-creation, not authorized, invalid,
 *   refused by policy): the batch is sent again one topic at a time, so only that topic's rows
 *   fail and one bad topic never holds back the others.
 * - `record`: the broker refused a record (too large, invalid, corrupt): the batch is sent again
 *   one record at a time, so only the culprit fails; sent together again it would fail every row
 *   that happens to share its batch on every retry, jamming the destination.
 *
 * `renewProducer`: the idempotent producer's sequence state is broken (out of order, fenced or
 * unknown producer id) or its authentication is; the link discards the producer and the next
 * batch starts a new one with a new producer id.
 */
import { errorText } from '../connection.js';

export type FailureScope = 'batch' | 'topic' | 'record';

export interface PublishFailure {
  readonly scope: FailureScope;
  readonly renewProducer: boolean;
  /** The row's failure text: `Publish failed: <reason>`, sanitized. */
  readonly text: string;
}

const RECORD_ERRORS = new Set([
  'MESSAGE_TOO_LARGE',
  'RECORD_LIST_TOO_LARGE',
  'INVALID_RECORD',
  'CORRUPT_MESSAGE',
  'UNSUPPORTED_FOR_MESSAGE_FORMAT',
  'INVALID_TIMESTAMP',
]);

const TOPIC_ERRORS = new Set([
  'UNKNOWN_TOPIC_OR_PARTITION',
  'INVALID_TOPIC_EXCEPTION',
  'TOPIC_AUTHORIZATION_FAILED',
  'POLICY_VIOLATION',
]);

const PRODUCER_STATE_ERRORS = new Set([
  'OUT_OF_ORDER_SEQUENCE_NUMBER',
  'DUPLICATE_SEQUENCE_NUMBER',
  'INVALID_PRODUCER_EPOCH',
  'UNKNOWN_PRODUCER_ID',
  'INVALID_PRODUCER_ID_MAPPING',
  'PRODUCER_FENCED',
  'CLUSTER_AUTHORIZATION_FAILED',
  'SASL_AUTHENTICATION_FAILED',
  'ILLEGAL_SASL_STATE',
  'UNSUPPORTED_SASL_MECHANISM',
]);

/** Error names of kafkajs whose producer should be replaced rather than reused. */
const PRODUCER_STATE_NAMES = new Set(['KafkaJSSASLAuthenticationError']);

export function classifyPublishError(error: unknown): PublishFailure {
  const root = rootCause(error);
  const type = protocolType(root);
  const text = `Publish failed: ${errorText(root)}${type === undefined ? '' : ` (${type})`}`;
  if (type !== undefined && RECORD_ERRORS.has(type)) {
    return { scope: 'record', renewProducer: false, text };
  }
  if (type !== undefined && TOPIC_ERRORS.has(type)) {
    return { scope: 'topic', renewProducer: false, text };
  }
  const renewProducer =
    (type !== undefined && PRODUCER_STATE_ERRORS.has(type)) ||
    (root instanceof Error && PRODUCER_STATE_NAMES.has(root.name));
  return { scope: 'batch', renewProducer, text };
}

/**
 * The broker's error code name of a kafkajs protocol error (`UNKNOWN_TOPIC_OR_PARTITION`). Read
 * by shape, not `instanceof`: kafkajs's error classes are not named exports of its ES module
 * face, and a second copy of kafkajs in an install would fail an `instanceof` test.
 */
export function protocolType(error: unknown): string | undefined {
  if (!(error instanceof Error) || error.name !== 'KafkaJSProtocolError') return undefined;
  const type = (error as { type?: unknown }).type;
  return typeof type === 'string' ? type : undefined;
}

/** The kafkajs errors that only wrap another (as `cause`). */
const WRAPPERS = new Set(['KafkaJSNumberOfRetriesExceeded', 'KafkaJSNonRetriableError']);

/**
 * kafkajs wraps the last error of its retries in `KafkaJSNumberOfRetriesExceeded`, and an error
 * it does not retry (a topic the user may not see, say) in `KafkaJSNonRetriableError`, each as
 * `cause`; the broker's answer is the one that says what happened.
 */
export function rootCause(error: unknown): unknown {
  let current = error;
  for (let depth = 0; depth < 5; depth++) {
    if (!(current instanceof Error) || !WRAPPERS.has(current.name)) {
      return current;
    }
    const cause: unknown = current.cause;
    if (cause === undefined) return current;
    current = cause;
  }
  return current;
}

/**
 * Whether a producer's connect failed because the broker did not answer its handshake in time
 * (as opposed to refusing the connection or the credentials). kafkajs then reports its request
 * timeout, or, once it has given up on the ApiVersions answer, a plain `Broker not connected`.
 * Such a broker may still answer within the row's budget, so the row waits for it rather than
 * failing early with a text that says nothing about a timeout.
 */
export function connectUnanswered(error: unknown): boolean {
  const root = rootCause(error);
  if (!(root instanceof Error)) return false;
  return (
    root.name === 'KafkaJSRequestTimeoutError' ||
    (root.name === 'KafkaJSConnectionError' && /timeout/i.test(root.message)) ||
    (root.name === 'Error' && root.message === 'Broker not connected')
  );
}
