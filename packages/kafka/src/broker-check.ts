/**
 * Whether QueueBox's Kafka client can speak to a broker at all. kafkajs picks, for each request,
 * the lower of its own highest version and the broker's highest, and never looks at the broker's
 * lowest: a broker that dropped every version kafkajs knows (Kafka 4 dropped the oldest ones,
 * KIP-896) would get requests it refuses, and kafkajs would retry them until every timeout ran
 * out. Before the first connect QueueBox asks the broker (ApiVersions v0, which every broker
 * answers, also before authentication) and refuses one it cannot speak to, with a message that
 * names the broker's generation and the versions on each side.
 */
import { connect as connectTcp, type Socket } from 'node:net';
import { connect as connectTls } from 'node:tls';
import { brokerList } from './connection.js';
import type { ISocketFactory } from './kafkajs.js';

/**
 * The requests QueueBox's producer and consumer send, with the highest version kafkajs 2.2.4
 * implements (its `protocol/requests` definitions; a unit test keeps this table equal to them).
 */
export const KAFKAJS_MAX_VERSIONS: ReadonlyMap<number, { name: string; max: number }> = new Map([
  [0, { name: 'Produce', max: 7 }],
  [1, { name: 'Fetch', max: 11 }],
  [2, { name: 'ListOffsets', max: 3 }],
  [3, { name: 'Metadata', max: 6 }],
  [8, { name: 'OffsetCommit', max: 5 }],
  [9, { name: 'OffsetFetch', max: 4 }],
  [10, { name: 'GroupCoordinator', max: 2 }],
  [11, { name: 'JoinGroup', max: 5 }],
  [12, { name: 'Heartbeat', max: 3 }],
  [13, { name: 'LeaveGroup', max: 3 }],
  [14, { name: 'SyncGroup', max: 3 }],
  [18, { name: 'ApiVersions', max: 2 }],
  [22, { name: 'InitProducerId', max: 1 }],
]);

/** API key → `[lowest, highest]` version the broker serves. */
export type BrokerApis = ReadonlyMap<number, readonly [number, number]>;

const FETCH = 1;
const PRODUCE = 0;

/** The broker's generation as its API versions show it (no request names a broker's release). */
export function brokerGeneration(apis: BrokerApis): string {
  const fetch = apis.get(FETCH);
  const produce = apis.get(PRODUCE);
  const shown = [
    produce && `Produce v${produce[0]}-v${produce[1]}`,
    fetch && `Fetch v${fetch[0]}-v${fetch[1]}`,
  ]
    .filter(Boolean)
    .join(', ');
  // Kafka 4.0 removed Fetch v0-v3 (KIP-896); every 3.x broker still serves Fetch v0.
  const generation =
    fetch === undefined ? 'Kafka' : fetch[0] >= 4 ? 'Kafka 4.0 or later' : 'Kafka before 4.0';
  return shown === '' ? generation : `${generation} (${shown})`;
}

/** The requests QueueBox needs that the broker serves at no version kafkajs speaks. */
export function unspeakable(apis: BrokerApis): string[] {
  const problems: string[] = [];
  for (const [key, { name, max }] of KAFKAJS_MAX_VERSIONS) {
    const range = apis.get(key);
    if (range === undefined) problems.push(`${name} not at all (kafkajs speaks v0-v${max})`);
    else if (range[0] > max)
      problems.push(`${name} from v${range[0]} only (kafkajs speaks up to v${max})`);
  }
  return problems;
}

/** A broker QueueBox's Kafka client cannot speak to; retrying does not change that. */
export class KafkaBrokerUnsupportedError extends Error {
  override readonly name = 'KafkaBrokerUnsupportedError';
}

/** The refusal of a broker QueueBox cannot speak to. */
export function refusal(
  address: string,
  apis: BrokerApis,
): KafkaBrokerUnsupportedError | undefined {
  const problems = unspeakable(apis);
  if (problems.length === 0) return undefined;
  return new KafkaBrokerUnsupportedError(
    `The Kafka broker at ${address} is ${brokerGeneration(apis)}, and QueueBox's Kafka client (kafkajs 2.2.4) cannot speak to it: the broker serves ${problems.join('; ')}. Point QueueBox at a Kafka broker from 1.0 to 4.x.`,
  );
}

export interface BrokerCheckOptions {
  readonly bootstrapServers: string;
  readonly ssl: boolean;
  readonly socketFactory?: ISocketFactory;
  readonly timeoutMs?: number;
}

/**
 * Resolves once the first bootstrap broker that answers serves what QueueBox needs, or when none
 * answers (kafkajs's own connect then reports why); rejects with the refusal otherwise.
 */
export async function checkBrokerSpeaks(options: BrokerCheckOptions): Promise<void> {
  for (const address of brokerList(options.bootstrapServers)) {
    const apis = await apiVersions(address, options).catch(() => undefined);
    if (apis === undefined) continue;
    const refused = refusal(address, apis);
    if (refused) throw refused;
    return;
  }
}

/** One ApiVersions v0 request and its answer. */
export function apiVersions(address: string, options: BrokerCheckOptions): Promise<BrokerApis> {
  const at = address.lastIndexOf(':');
  const host = at > 0 ? address.slice(0, at) : address;
  const port = at > 0 ? Number(address.slice(at + 1)) : 9092;
  return new Promise((resolve, reject) => {
    let buffer = Buffer.alloc(0);
    const send = () => socket.write(apiVersionsRequest());
    const socket: Socket = options.socketFactory
      ? options.socketFactory({
          host,
          port,
          ssl: options.ssl ? {} : (undefined as never),
          onConnect: send,
        })
      : options.ssl
        ? connectTls({ host, port, servername: host }, send)
        : connectTcp({ host, port }, send);
    const timer = setTimeout(() => done(new Error('no answer')), options.timeoutMs ?? 5_000);
    const done = (error: Error | null, apis?: BrokerApis) => {
      clearTimeout(timer);
      socket.destroy();
      if (error) reject(error);
      else resolve(apis!);
    };
    socket.once('error', (error) => done(error));
    socket.once('close', () => done(new Error('closed')));
    socket.on('data', (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      if (buffer.length < 4 || buffer.length < 4 + buffer.readInt32BE(0)) return;
      try {
        done(null, readApiVersions(buffer.subarray(4, 4 + buffer.readInt32BE(0))));
      } catch (error: unknown) {
        done(error instanceof Error ? error : new Error(String(error)));
      }
    });
  });
}

function apiVersionsRequest(): Buffer {
  const clientId = Buffer.from('queuebox-version-check');
  const frame = Buffer.alloc(14 + clientId.length);
  frame.writeInt32BE(10 + clientId.length, 0);
  frame.writeInt16BE(18, 4); // ApiVersions
  frame.writeInt16BE(0, 6); // v0
  frame.writeInt32BE(1, 8); // correlation id
  frame.writeInt16BE(clientId.length, 12);
  clientId.copy(frame, 14);
  return frame;
}

/** correlation id, error code, then [api key, min, max] × n. */
export function readApiVersions(frame: Buffer): BrokerApis {
  const error = frame.readInt16BE(4);
  if (error !== 0) throw new Error(`ApiVersions answered error code ${error}`);
  const count = frame.readInt32BE(6);
  const apis = new Map<number, readonly [number, number]>();
  for (let i = 0, at = 10; i < count; i++, at += 6) {
    apis.set(frame.readInt16BE(at), [frame.readInt16BE(at + 2), frame.readInt16BE(at + 4)]);
  }
  return apis;
}
