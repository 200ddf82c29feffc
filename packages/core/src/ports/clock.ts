/** The app clock. Injected so tests can pin time; the DB clock lives in SQL. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
