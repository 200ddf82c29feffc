import { sleep, toError, type ChangeListener, type ChangeStream } from '@queuebox/core';
import type { StatementResult } from '../connection/session.js';
import type { Statement } from '../sql/statement.js';
import { captureSql } from './capture-sql.js';
import { lsnOf, LsnCursor, type Lsn, type PollResult } from './lsn-cursor.js';

export interface ChangeTablePollerOptions {
  /** Runs one statement on the capture connection. */
  readonly run: (statement: Statement) => Promise<StatementResult>;
  /** The capture instance and its change table (`[cdc].[dbo_outbox_CT]`), as the server named them. */
  readonly captureInstance: string;
  readonly changeTable: string;
  /** Where the cursor starts: the capture job's highest LSN when the stream opened. */
  readonly start: Lsn;
  readonly listener: ChangeListener;
  /** Pause between polls; each poll is one round trip. */
  readonly intervalMs: number;
}

/** Reads one poll's two result sets into the cursor's terms. */
export function pollResultOf(result: StatementResult): PollResult {
  const [bounds = [], operations = []] = result.recordsets;
  const head = bounds[0] ?? {};
  return {
    upto: lsnOf(head.upto),
    minLsn: lsnOf(head.minLsn),
    operations: operations.map((row) => ({
      operation: Number(row.operation),
      changes: Number(row.changes),
    })),
  };
}

/**
 * The change feed of `sqlserver-cdc`: SQL Server's capture job copies the outbox table's changes
 * from the log into the instance's change table, and this loop reads, every `intervalMs`, what
 * arrived since the last poll (counts per operation only, never the rows) and reports it. The
 * capture job is the lag that matters: it scans the log every `pollinginterval` seconds (5 by
 * default, see docs/sqlserver.md). Any failure of a poll ends the feed with its reason; the
 * capture service retries with its backoff, and the next run's preflight says what is missing.
 */
export function openChangeTablePoller(options: ChangeTablePollerOptions): ChangeStream {
  const stop = new AbortController();
  const cursor = new LsnCursor(options.start, options.captureInstance);
  const ended = (async () => {
    while (!stop.signal.aborted) {
      const result = await options.run(
        captureSql.poll(options.changeTable, options.captureInstance, cursor.position),
      );
      if (stop.signal.aborted) return;
      for (const kind of cursor.apply(pollResultOf(result))) options.listener.onChange(kind);
      await sleep(options.intervalMs, stop.signal);
    }
  })().catch((error: unknown) => {
    // A poll cut short by close() is the normal end, not a failure.
    if (!stop.signal.aborted) throw toError(error);
  });
  return {
    ended,
    async close() {
      stop.abort();
      await ended.catch(() => undefined);
    },
  };
}
