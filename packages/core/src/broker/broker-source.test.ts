import { describe, expect, it } from 'vitest';
import { QueueBoxError } from '../errors.js';
import type { Logger } from '../ports/logger.js';
import type { DeliveryVerdict, SourceDelivery } from '../ports/source-consumer.js';
import { BrokerSource, type BrokerSourceOptions } from './broker-source.js';

/** Resolves once `check` holds, polling; fails after `ms`. */
async function until(check: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

function recordingLogger(lines: string[]): Logger {
  const log = (message: string) => void lines.push(message);
  const logger: Logger = {
    debug: log,
    info: log,
    warn: log,
    error: log,
    child: () => logger,
  };
  return logger;
}

interface FakeSession {
  readonly id: number;
  open: boolean;
  stopped: boolean;
}

const DELIVERY: SourceDelivery = { body: new Uint8Array(), headers: {}, fallbacks: {} };

/** A broker whose connect answers from a script, and whose deliveries the test pushes. */
class ScriptedSource extends BrokerSource<FakeSession> {
  readonly lines: string[];
  readonly settled: string[] = [];
  readonly released: (number | null)[] = [];
  connects: (() => Promise<void>)[] = [];
  opened = 0;

  constructor(
    verdict: () => Promise<DeliveryVerdict>,
    lines: string[] = [],
    options: BrokerSourceOptions = {},
  ) {
    super(
      'orders',
      {
        texts: { broker: 'Fake', session: 'channel', unit: 'message', again: '' },
        errorText: (error) => (error instanceof Error ? error.message : String(error)),
        retryRound: 2,
      },
      { handler: { handle: verdict }, logger: recordingLogger(lines) },
      options,
    );
    this.lines = lines;
  }

  protected override async open(): Promise<FakeSession> {
    const next = this.connects.shift();
    if (next !== undefined) await next();
    this.opened += 1;
    return { id: this.opened, open: true, stopped: false };
  }

  protected override ready(session: FakeSession): boolean {
    return session.open;
  }

  protected override consumingText(): string {
    return 'consumes';
  }

  protected override stopConsuming(session: FakeSession | null): Promise<void> {
    if (session !== null) session.stopped = true;
    return Promise.resolve();
  }

  protected override release(session: FakeSession | null): Promise<void> {
    this.released.push(session?.id ?? null);
    return Promise.resolve();
  }

  current(): FakeSession | null {
    return this.session;
  }

  deliver(): Promise<void> {
    return this.handle(DELIVERY, (verdict) => {
      const delayMs = this.retryDelay(verdict);
      this.settled.push(verdict.settle === 'ack' ? 'ack' : `retry after ${delayMs}`);
    });
  }

  lose(session: FakeSession): void {
    session.open = false;
    this.lost(session, 'the channel closed');
  }
}

const ack = (): Promise<DeliveryVerdict> => Promise.resolve({ settle: 'ack', outcome: 'stored' });

describe('BrokerSource', () => {
  it('names its readiness component after the broker and is ready once a session consumes', async () => {
    const source = new ScriptedSource(ack);
    expect(source.healthComponent).toBe('fake.orders');
    expect(source.isHealthy()).toBe(false);
    await source.start();
    expect(source.isHealthy()).toBe(true);
    await source.close();
    expect(source.isHealthy()).toBe(false);
    expect(source.released).toEqual([1]);
  });

  it('keeps trying in the background when the broker cannot be reached at start', async () => {
    const source = new ScriptedSource(ack);
    source.connects = [() => Promise.reject(new Error('refused')), () => Promise.resolve()];
    await source.start();
    expect(source.isHealthy()).toBe(false);
    expect(source.lines).toEqual([
      "Source 'orders' cannot reach Fake yet, so it keeps trying in the background. Reason: refused",
    ]);
    await until(() => source.isHealthy());
    expect(source.lines.at(-1)).toBe("Source 'orders' consumes again.");
    await source.close();
  });

  it('stops the start on a refusal that waiting cannot change', async () => {
    const source = new ScriptedSource(ack);
    source.connects = [() => Promise.reject(new QueueBoxError('config_invalid', 'no queue'))];
    await expect(source.start()).rejects.toThrow('no queue');
    expect(source.isHealthy()).toBe(false);
    // Closed: no attempt follows.
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(source.opened).toBe(0);
  });

  it('replaces a lost session after a wait, and is not ready meanwhile', async () => {
    const source = new ScriptedSource(ack);
    await source.start();
    const first = source.current()!;
    source.lose(first);
    expect(source.isHealthy()).toBe(false);
    expect(source.lines).toContain(
      "Source 'orders' lost its Fake channel and reconnects. Reason: the channel closed",
    );
    await until(() => source.isHealthy());
    expect(source.current()!.id).toBe(2);
    await source.close();
  });

  it('doubles the retry wait per round of failures and starts over after an ack', async () => {
    let verdicts: DeliveryVerdict[] = [];
    const source = new ScriptedSource(() => Promise.resolve(verdicts.shift()!));
    await source.start();
    const retry: DeliveryVerdict = { settle: 'retry', reason: 'store down' };
    verdicts = [retry, retry, retry, { settle: 'ack', outcome: 'stored' }, retry];
    for (let i = 0; i < 5; i++) await source.deliver();
    expect(source.settled).toEqual([
      'retry after 100',
      'retry after 100',
      'retry after 200',
      'ack',
      'retry after 100',
    ]);
    await source.close();
  });

  it('takes a handler that throws as a retry', async () => {
    const source = new ScriptedSource(() => Promise.reject(new Error('boom')));
    await source.start();
    await source.deliver();
    expect(source.settled).toEqual(['retry after 100']);
    await source.close();
  });

  it('lets deliveries in hand settle on close, within its bound', async () => {
    let finish!: () => void;
    const slow = new Promise<DeliveryVerdict>((resolve) => {
      finish = () => resolve({ settle: 'ack', outcome: 'stored' });
    });
    const source = new ScriptedSource(() => slow);
    await source.start();
    const delivered = source.deliver();
    const session = source.current()!;
    const closing = source.close();
    await until(() => session.stopped);
    finish();
    await closing;
    await delivered;
    expect(source.settled).toEqual(['ack']);
    expect(source.released).toEqual([1]);

    const stuck = new ScriptedSource(() => new Promise(() => undefined), [], {
      settleTimeoutMs: 50,
    });
    await stuck.start();
    void stuck.deliver();
    await stuck.close();
    expect(stuck.lines.at(-1)).toBe(
      "Source 'orders' stopped with 1 message(s) still being handled; Fake delivers them again.",
    );
  });
});
