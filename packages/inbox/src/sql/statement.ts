/** One statement: its text and the names of its positional parameters, in binding order. */
export interface InboxStatement {
  readonly text: string;
  readonly params: readonly string[];
}

export interface InboxStatements {
  readonly claim: InboxStatement;
  readonly renew: InboxStatement;
  readonly complete: InboxStatement;
  readonly retry: InboxStatement;
  readonly dead: InboxStatement;
}

export interface StatementOptions {
  /** See InboxOptions.strictAggregateOrder. */
  readonly strictAggregateOrder?: boolean;
}

/** The parameter names of the five statements (spec §9.1), the same on both dialects. */
export const PARAMS = {
  claim: ['source', 'batch', 'lease_ms', 'cand_limit'],
  renew: ['lease_ms', 'id', 'token'],
  complete: ['id', 'token'],
  retry: ['delay_ms', 'error', 'id', 'token'],
  dead: ['error', 'id', 'token'],
} as const satisfies Record<keyof InboxStatements, readonly string[]>;
