/**
 * The services an end-to-end file needs, found once under the file's suite title: PostgreSQL
 * always, and the brokers it names. Where one is missing the file's describe is skipped (and the
 * lookup has printed why); the broker's URL then falls back to its local default, so a file can
 * still build its proxy targets and YAML at load time.
 */
import { brokerAddress, requireService } from '@queuebox/testing';

export type BrokerKind = 'rabbitmq' | 'nats' | 'kafka';

const LOCAL: Readonly<Record<BrokerKind, { readonly url: string; readonly port: number }>> = {
  rabbitmq: { url: 'amqp://127.0.0.1:5672', port: 5672 },
  nats: { url: 'nats://127.0.0.1:4222', port: 4222 },
  kafka: { url: '127.0.0.1:9092', port: 9092 },
};

export interface E2EServices {
  /** Every service the file named is there. */
  readonly ready: boolean;
  readonly pgUrl: string;
  /** The broker's URL, its local default where it is missing. */
  readonly url: string;
  /** Host and port of the broker, for a fault proxy to forward to. */
  readonly target: { readonly host: string; readonly port: number };
}

export async function e2eServices(suite: string, broker?: BrokerKind): Promise<E2EServices> {
  const pg = await requireService('postgres', suite);
  const found = broker === undefined ? undefined : await requireService(broker, suite);
  const url = found?.available ? found.url : broker === undefined ? '' : LOCAL[broker].url;
  let target = { host: '127.0.0.1', port: 0 };
  if (broker === 'kafka') target = brokerAddress(url);
  else if (broker !== undefined) {
    const parsed = new URL(url);
    target = { host: parsed.hostname, port: Number(parsed.port || LOCAL[broker].port) };
  }
  return {
    ready: pg.available && (found?.available ?? true),
    pgUrl: pg.available ? pg.url : '',
    url,
    target,
  };
}
