/**
 * The end of the soak's load: what every receiver must end with, and the wait (up to the
 * `--timeout`) until every expected outbox row is `sent`, the inbox forwarded and the receivers
 * complete. A wait that runs out is no error here: it is the first check of the verdict.
 */
import { waitFor } from '../lib/util.mjs';
import { rabbitKey } from './load.mjs';

/** The counts of the run: outbox rows (the application's and the relayed webhooks) and receivers. */
export function expectedDeliveries(options) {
  const rabbitRows = Array.from({ length: options.rows }, (_, i) => i % options.keys).filter(
    rabbitKey,
  ).length;
  return {
    outbox: options.rows + options.webhooks,
    http: options.rows - rabbitRows,
    rabbit: rabbitRows,
  };
}

/** Resolves with true once drained, with false (and an event saying why) when the wait ran out. */
export async function waitForDrain({ sql, expected, options, ledgers, collector, event }) {
  let drained = true;
  await waitFor(
    async () => {
      try {
        const [{ n: sent }] = await sql`SELECT count(*)::int AS n FROM outbox WHERE state = 'sent'`;
        return (
          sent >= expected.outbox &&
          ledgers.orders.seen.size >= expected.http &&
          ledgers.hooks.seen.size >= options.webhooks &&
          new Set(collector.messages.map((m) => m.properties.messageId)).size >= expected.rabbit
        );
      } catch {
        return false;
      }
    },
    { timeoutMs: options.timeout * 1000, everyMs: 500, what: 'every delivery' },
  ).catch((error) => {
    drained = false;
    event(error.message);
  });
  return drained;
}
