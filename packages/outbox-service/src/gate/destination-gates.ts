import type { ClaimOptions, PassOverRule } from '@queuebox/core';

/** How a publish that a gate admitted ended; every admission is settled exactly once. */
export type GateOutcome =
  | { readonly kind: 'success' }
  /** `retryAfterMs`: the destination asked to be left alone this long (429/503 Retry-After). */
  | { readonly kind: 'failure'; readonly retryAfterMs?: number }
  /** Admitted but no publish answer counts: the claim was lost, or another gate said no. */
  | { readonly kind: 'cancelled' };

/**
 * The capacity of one destination as the poller sees it (a circuit breaker, a rate limit, a
 * limit of publishes in flight). Times are the gates' monotonic ms clock (`DestinationGates.now`).
 *
 * - `blocked` is asked before every claim, with no side effect: while it is true the claim
 *   passes over the destination's rows, which stay pending with no lease and no attempt.
 * - `admit` is asked right before a publish, after the row was claimed: true takes what the
 *   publish uses (the half-open probe, a token, an in-flight place) and the caller reports
 *   `settled` exactly once; false hands the row back to pending, its attempt unchanged.
 */
export interface DestinationGate {
  blocked(nowMs: number): boolean;
  admit(nowMs: number): boolean;
  settled(outcome: GateOutcome, nowMs: number): void;
}

/** The route list as the claim filter reads it: first match wins (spec §5.1). */
export interface GateRoute {
  readonly topicPattern: string;
  readonly destination: string;
}

/**
 * The gates of every destination that has one, and the claim filter they add up to. With no gate
 * registered the poller never asks (`isEmpty`), so the claim and the publish path are the plain
 * ones. Several gates of one destination are asked in registration order; one that says no
 * settles the earlier admissions as `cancelled`.
 */
export class DestinationGates {
  private readonly gates = new Map<string, DestinationGate[]>();
  private lastBlockedKey = '';
  private lastOptions: ClaimOptions | null = null;

  constructor(
    private readonly routes: readonly GateRoute[],
    /** Monotonic ms; tests inject theirs. */
    readonly now: () => number = () => performance.now(),
  ) {}

  add(destination: string, gate: DestinationGate): void {
    const list = this.gates.get(destination);
    if (list) list.push(gate);
    else this.gates.set(destination, [gate]);
  }

  get isEmpty(): boolean {
    return this.gates.size === 0;
  }

  /** Whether the destination has a gate at all (the publish path asks `admit` only then). */
  has(destination: string): boolean {
    return this.gates.has(destination);
  }

  /** The destinations without capacity now. */
  blocked(nowMs: number = this.now()): ReadonlySet<string> {
    const blocked = new Set<string>();
    for (const [destination, list] of this.gates) {
      if (list.some((gate) => gate.blocked(nowMs))) blocked.add(destination);
    }
    return blocked;
  }

  /**
   * The claim's filter now, or null when every destination has capacity (the plain claim). One
   * rule per route to a blocked destination: its pattern, unless an earlier route to a
   * destination that is not blocked matches first. Built again only when the blocked set changes.
   */
  claimOptions(nowMs: number = this.now()): ClaimOptions | null {
    const blocked = this.blocked(nowMs);
    if (blocked.size === 0) return null;
    const key = [...blocked].sort().join('\u0000');
    if (key !== this.lastBlockedKey || this.lastOptions === null) {
      this.lastBlockedKey = key;
      this.lastOptions = { passOver: passOverRules(this.routes, blocked) };
    }
    return this.lastOptions;
  }

  /** True when the publish may go; then `settled` must follow once. False: hand the row back. */
  admit(destination: string, nowMs: number = this.now()): boolean {
    const list = this.gates.get(destination);
    if (!list) return true;
    for (let i = 0; i < list.length; i++) {
      if (list[i]!.admit(nowMs)) continue;
      for (let j = 0; j < i; j++) list[j]!.settled({ kind: 'cancelled' }, nowMs);
      return false;
    }
    return true;
  }

  settled(destination: string, outcome: GateOutcome, nowMs: number = this.now()): void {
    for (const gate of this.gates.get(destination) ?? []) gate.settled(outcome, nowMs);
  }
}

/** See `DestinationGates.claimOptions`. */
export function passOverRules(
  routes: readonly GateRoute[],
  blocked: ReadonlySet<string>,
): PassOverRule[] {
  const rules: PassOverRule[] = [];
  const open: string[] = [];
  for (const route of routes) {
    if (blocked.has(route.destination)) {
      rules.push({ pattern: route.topicPattern, unless: [...open] });
    } else {
      open.push(route.topicPattern);
    }
  }
  return rules;
}
