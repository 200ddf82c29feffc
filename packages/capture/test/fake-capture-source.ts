import type {
  CaptureRegistration,
  CaptureSession,
  CaptureSource,
  ChangeListener,
  ChangeStream,
  DeliveryLoad,
  DurableSlot,
  LockAttempt,
} from '@queuebox/core';
import { until } from '@queuebox/testing';

/**
 * A scripted capture source for the service's unit tests: each `open()` takes the next plan
 * (or the default one) and records what the service did with the session. The PostgreSQL
 * source runs against a real server in @queuebox/postgres's own tests.
 */
export interface SessionPlan {
  readonly openError?: Error;
  readonly lock?: LockAttempt;
  readonly preflightError?: Error;
  readonly slots?: DurableSlot[];
  /** Hangs `openStream` until the session closes. */
  readonly hangOnStream?: boolean;
}

export class FakeSession implements CaptureSession {
  readonly fingerprintLines = ['connector.class=fake', 'slot.name=s'];
  listener: ChangeListener | null = null;
  closed = false;
  alive_ = true;
  ended: string[] = [];
  /** Feeds opened on this session, and whether the last one is open. */
  streamsOpened = 0;
  streaming = false;
  private endStream: ((error: Error | null) => void) | null = null;
  private hang: (() => void) | null = null;

  constructor(
    readonly id: string,
    private readonly plan: SessionPlan,
    private readonly source: FakeCaptureSource,
  ) {}

  tryLock(): Promise<LockAttempt> {
    return Promise.resolve(this.plan.lock ?? { held: true });
  }
  alive(): Promise<boolean> {
    return Promise.resolve(this.alive_ && !this.closed);
  }
  endStaleSession(id: string): Promise<boolean> {
    this.ended.push(id);
    return Promise.resolve(true);
  }
  registration(identity: string): Promise<CaptureRegistration | null> {
    return Promise.resolve(this.source.rows.get(identity) ?? null);
  }
  register(registration: CaptureRegistration): Promise<void> {
    if (!this.source.rows.has(registration.identity))
      this.source.rows.set(registration.identity, registration);
    return Promise.resolve();
  }
  preflight(): Promise<void> {
    return this.plan.preflightError ? Promise.reject(this.plan.preflightError) : Promise.resolve();
  }
  durableSlots(): Promise<DurableSlot[]> {
    return Promise.resolve(this.source.slots);
  }
  openStream(listener: ChangeListener): Promise<ChangeStream> {
    if (this.plan.hangOnStream) {
      return new Promise((_resolve, reject) => {
        this.hang = () => reject(new Error('closed while opening'));
      });
    }
    this.listener = listener;
    this.streamsOpened++;
    this.streaming = true;
    const ended = new Promise<void>((resolve, reject) => {
      this.endStream = (error) => {
        this.streaming = false;
        if (error) reject(error);
        else resolve();
      };
    });
    ended.catch(() => undefined);
    const end = this.endStream;
    return Promise.resolve({ ended, close: () => Promise.resolve(end?.(null)) });
  }
  close(): Promise<void> {
    this.closed = true;
    this.hang?.();
    this.endStream?.(null);
    return Promise.resolve();
  }
  /** The feed failed (a cut connection). */
  fail(message: string): void {
    this.endStream?.(new Error(message));
  }
}

export class FakeCaptureSource implements CaptureSource {
  readonly sessions: FakeSession[] = [];
  readonly rows = new Map<string, CaptureRegistration>();
  slots: DurableSlot[] = [];
  private opened = 0;

  constructor(private readonly plans: SessionPlan[] = []) {}

  open(): Promise<CaptureSession> {
    const plan = this.plans.shift() ?? {};
    this.opened++;
    if (plan.openError) return Promise.reject(plan.openError);
    const session = new FakeSession(String(100 + this.opened), plan, this);
    this.sessions.push(session);
    return Promise.resolve(session);
  }

  get opens(): number {
    return this.opened;
  }

  get last(): FakeSession | undefined {
    return this.sessions.at(-1);
  }
}

/** A poller's load the test sets by hand. */
export class FakeLoad implements DeliveryLoad {
  private value = false;
  private readonly listeners = new Set<(busy: boolean) => void>();

  get busy(): boolean {
    return this.value;
  }

  set(busy: boolean): void {
    if (busy === this.value) return;
    this.value = busy;
    for (const listener of this.listeners) listener(busy);
  }

  onChange(listener: (busy: boolean) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

/** `until` with the capture tests' shorter default timeout. */
export const waitFor = (condition: () => boolean, ms = 2_000): Promise<void> =>
  until(condition, ms);
