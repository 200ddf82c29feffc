import type { InboxConnection, InboxConnectionSource } from '../connections.js';
import type { InboxMessage } from '../message.js';
import type { ResolvedInboxOptions } from '../options.js';
import type { InboxStatements } from '../sql/statement.js';

/** The largest INT of SQL Server: the most milliseconds its DATEADD adds. */
export const MAX_INT = 2_147_483_647;

/** What one run of the loop needs from its worker. */
export interface LoopSettings {
  readonly options: ResolvedInboxOptions;
  readonly statements: InboxStatements;
  readonly connections: InboxConnectionSource;
  readonly concurrency: number;
  readonly renewEveryMs: number;
}

/** One claimed message while the worker holds it. */
export interface Held {
  readonly message: InboxMessage;
  readonly token: string;
  readonly controller: AbortController;
  lost: boolean;
  abandoned: boolean;
  started: boolean;
  timer: ReturnType<typeof setInterval> | undefined;
  renewal: Promise<void> | undefined;
  /** Stops waiting for the handler (the shutdown grace ran out); set while the handler runs. */
  leave: (() => void) | undefined;
}

export function held(message: InboxMessage, token: string): Held {
  return {
    message,
    token,
    controller: new AbortController(),
    lost: false,
    abandoned: false,
    started: false,
    timer: undefined,
    renewal: undefined,
    leave: undefined,
  };
}

/** Lends one connection of the source to `work` and releases it after. */
export async function withConnection<T>(
  connections: InboxConnectionSource,
  work: (c: InboxConnection) => Promise<T>,
): Promise<T> {
  const connection = await connections.connect();
  try {
    return await work(connection);
  } finally {
    connection.release();
  }
}

export const ABANDONED_BY_SHUTDOWN = 'The shutdown abandoned the message, so it spends no attempt.';
