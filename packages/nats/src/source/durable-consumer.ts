/**
 * The durable pull consumer a NATS source reads through (spec §7.8), checked at every (re)start:
 *
 * - the stream must exist: QueueBox never creates one (its retention, limits and replicas are
 *   the operator's), and a missing stream stops the start naming it;
 * - a missing durable consumer is created: pull, explicit acks, `ack_wait` = `ackWaitMs`,
 *   delivering from the start of the stream, filtered by `filterSubject` when set. Replicas that
 *   create it at once create the same consumer (the server accepts an identical create);
 * - an existing one is used only when it has exactly the settings the source would create it
 *   with (pull, explicit acks, the same `ack_wait` and filter subject). QueueBox does not change
 *   a consumer that another deployment may share; it stops the start naming every difference
 *   and the two ways out (docs/decisions.md).
 */
import {
  AckPolicy,
  DeliverPolicy,
  JetStreamApiError,
  type ConsumerConfig,
  type ConsumerInfo,
  type JetStreamManager,
} from '@nats-io/jetstream';
import { millis, nanos } from '@nats-io/transport-node';
import { QueueBoxError, type NatsSourceConfig } from '@queuebox/core';

/** The JetStream API error codes this module reads. */
const STREAM_NOT_FOUND = 10059;
const CONSUMER_NOT_FOUND = 10014;

export async function ensureDurableConsumer(
  jsm: JetStreamManager,
  source: string,
  config: Pick<
    NatsSourceConfig,
    'stream' | 'durable' | 'filterSubject' | 'ackWaitMs' | 'batchSize'
  >,
): Promise<ConsumerInfo> {
  const { stream, durable } = config;
  try {
    await jsm.streams.info(stream);
  } catch (error: unknown) {
    if (apiErrorCode(error) === STREAM_NOT_FOUND) {
      throw new QueueBoxError(
        'config_invalid',
        `sources.${source}: the JetStream stream '${stream}' does not exist. QueueBox never creates a stream (its subjects, retention and replicas are yours to choose): create it, for example with 'nats stream add ${stream}', then start QueueBox again.`,
        { cause: error },
      );
    }
    throw error;
  }
  let existing: ConsumerInfo | null = null;
  try {
    existing = await jsm.consumers.info(stream, durable);
  } catch (error: unknown) {
    if (apiErrorCode(error) !== CONSUMER_NOT_FOUND) throw error;
  }
  if (existing === null) return jsm.consumers.add(stream, wantedConfig(config));
  const differences = settingDifferences(existing.config, config);
  if (differences.length > 0) {
    throw new QueueBoxError(
      'config_invalid',
      `sources.${source}: the durable consumer '${durable}' on stream '${stream}' exists with settings other than this source's: ${differences.join('; ')}. QueueBox does not change a consumer others may share: delete it ('nats consumer rm ${stream} ${durable}') and QueueBox creates it with the source's settings, or change the source's keys to match it.`,
    );
  }
  return existing;
}

/** The consumer a source creates when its durable is missing. */
export function wantedConfig(
  config: Pick<NatsSourceConfig, 'durable' | 'filterSubject' | 'ackWaitMs' | 'batchSize'>,
): Partial<ConsumerConfig> {
  return {
    durable_name: config.durable,
    ack_policy: AckPolicy.Explicit,
    ack_wait: nanos(config.ackWaitMs),
    deliver_policy: DeliverPolicy.All,
    ...(filterOf(config.filterSubject) === '' ? {} : { filter_subject: config.filterSubject! }),
    // The server's default (1000) would cap a larger fetch.
    ...(config.batchSize > 1000 ? { max_ack_pending: config.batchSize } : {}),
  };
}

/** Each setting of `existing` that differs from what the source creates, as `key found (wanted)`. */
export function settingDifferences(
  existing: Partial<ConsumerConfig>,
  config: Pick<NatsSourceConfig, 'filterSubject' | 'ackWaitMs'>,
): string[] {
  const differences: string[] = [];
  if (existing.deliver_subject !== undefined && existing.deliver_subject !== '') {
    differences.push(`it is a push consumer (deliver_subject set), this source pulls`);
  }
  if (existing.ack_policy !== AckPolicy.Explicit) {
    differences.push(`ack_policy ${String(existing.ack_policy)} (the source acks explicitly)`);
  }
  const ackWaitMs = existing.ack_wait === undefined ? null : millis(existing.ack_wait);
  if (ackWaitMs !== config.ackWaitMs) {
    differences.push(`ack_wait ${ackWaitMs ?? 'unset'} ms (ackWaitMs is ${config.ackWaitMs} ms)`);
  }
  const found = filterOf(existing.filter_subject ?? existing.filter_subjects?.join(',') ?? null);
  const wanted = filterOf(config.filterSubject);
  if (found !== wanted) {
    differences.push(
      `filter_subject ${found === '' ? 'none' : `'${found}'`} (filterSubject is ${wanted === '' ? 'not set' : `'${wanted}'`})`,
    );
  }
  return differences;
}

/** No filter and `>` both read the whole stream. */
function filterOf(subject: string | null | undefined): string {
  return subject === null || subject === undefined || subject === '>' ? '' : subject;
}

/** The JetStream API error code (`err_code`) of a failed request, if it has one. */
export function apiErrorCode(error: unknown): number | undefined {
  return error instanceof JetStreamApiError ? error.code : undefined;
}
