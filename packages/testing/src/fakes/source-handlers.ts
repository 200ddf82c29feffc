/**
 * What a broker source's own tests hand it in place of the ingest and the logger: a delivery
 * handler that records every delivery and answers as the test says, and a logger that keeps the
 * warnings (the reconnect and backoff lines a test reads).
 */
import {
  silentLogger,
  type DeliveryHandler,
  type DeliveryVerdict,
  type Logger,
  type SourceDelivery,
} from '@queuebox/core';

export function recordingHandler(
  answer: () => DeliveryVerdict = () => ({ settle: 'ack', outcome: 'stored' }),
): { readonly handler: DeliveryHandler; readonly deliveries: SourceDelivery[] } {
  const deliveries: SourceDelivery[] = [];
  const handler: DeliveryHandler = {
    handle(delivery) {
      deliveries.push(delivery);
      return Promise.resolve(answer());
    },
  };
  return { handler, deliveries };
}

export function warningLogger(): { readonly logger: Logger; readonly lines: string[] } {
  const lines: string[] = [];
  const logger: Logger = { ...silentLogger, warn: (text) => lines.push(text), child: () => logger };
  return { logger, lines };
}
