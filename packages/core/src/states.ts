/**
 * The state literals of the two tables, exactly as the seeds list them. They are written to
 * VARCHAR(50) columns that replicas of the reference read too, so they never change.
 */
export const OUTBOX_STATES = ['pending', 'processing', 'sent', 'dead'] as const;
export type OutboxState = (typeof OUTBOX_STATES)[number];

export const INBOX_STATES = ['pending', 'processing', 'processed', 'dead'] as const;
export type InboxState = (typeof INBOX_STATES)[number];

export const CONSUMPTION_MODES = ['push', 'pull'] as const;
export type Consumption = (typeof CONSUMPTION_MODES)[number];

/** Final outbox states: only an operator (replay or SQL) moves a row out of them. */
export const OUTBOX_FINAL_STATES: readonly OutboxState[] = ['sent', 'dead'];
