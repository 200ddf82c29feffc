import { JsonPayload, publishFailed } from '@queuebox/core';
import { afterEach, describe, expect, it } from 'vitest';
import { fakePipeline, fakeRouter, transformStage } from '../../test/poller-fakes.js';
import { pollerHarness, type PollerHarness } from '../../test/poller-harness.js';
import { FakePublisher, until } from '@queuebox/testing';

let h: PollerHarness | undefined;
afterEach(async () => {
  await h?.poller.close();
  h = undefined;
});

const failing = (error: string) => () => ({ ok: false as const, error: publishFailed(error) });

describe('OutboxPoller delivery (spec §4.3)', () => {
  it('publishes each row with attempt 0, marks it sent and counts it', async () => {
    h = pollerHarness();
    const ids = await h.insert(
      { topic: 'order.created', key: null, payload: { n: 1 } },
      { topic: 'order.paid', key: 'k', payload: { n: 2 } },
      { topic: 'order.shipped', payload: [1, 2] },
    );
    h.poller.start();
    await until(() => h!.store.byState('sent').length === 3, 5_000, 'three rows sent');

    expect(h.publisher.requests.map((r) => r.message.id).sort()).toEqual([...ids].sort());
    for (const request of h.publisher.requests) {
      expect(request.message.attempt).toBe(0);
      expect(request.destination).toBe('orders');
      expect(request.payload.value).toEqual(h.store.row(request.message.id).payload);
    }
    await until(() => h!.poller.inFlight === 0);
    expect(h.metrics.messages.value({ status: 'sent' })).toBe(3);
    expect(h.destinationCount('success')).toBe(3);
    expect(h.metrics.publishDuration.count({ destination_type: 'http' })).toBe(3);
    expect(h.metrics.processingDuration.count()).toBe(3);
    expect(h.metrics.queueDepth.value({ destination: 'orders' })).toBe(0);
    expect(h.metrics.claimsLost.value({ component: 'outbox' })).toBe(0);
    expect(h.logger.messages('warn')).toEqual([]);
    expect(h.logger.messages('error')).toEqual([]);
  });

  it('retries with a growing delay, the WARN text and a sanitized last_error', async () => {
    h = pollerHarness({
      publishers: [
        new FakePublisher(
          'http',
          'all',
          failing('HTTP 500: Internal Server Error - {"password":"hunter2"}'),
        ),
      ],
    });
    const [id] = await h.insert({
      topic: 'order.created',
      payload: {},
      headers: { 'x-correlation-id': 'corr-1' },
    });
    h.poller.start();
    await until(() => h!.store.row(id!).attempt === 1, 5_000, 'first retry');
    const row = h.store.row(id!);
    expect(row.state).toBe('pending');
    expect(row.lastError).toBe('HTTP 500: Internal Server Error - {"password=[REDACTED]}');
    expect(row.scheduledAt - row.updatedAt).toBe(1000);

    h.store.advance(1000);
    await until(() => h!.store.row(id!).attempt === 2, 5_000, 'second retry');
    expect(h.store.row(id!).scheduledAt - h.store.row(id!).updatedAt).toBe(2000);

    const warns = h.logger.lines.filter((l) => l.level === 'warn');
    expect(warns.map((l) => l.message)).toEqual([
      `Publishing message ${id} failed on attempt 0. The retry runs in 1000 ms. Reason: HTTP 500: Internal Server Error - {"password=[REDACTED]}`,
      `Publishing message ${id} failed on attempt 1. The retry runs in 2000 ms. Reason: HTTP 500: Internal Server Error - {"password=[REDACTED]}`,
    ]);
    expect(warns[1]!.fields).toMatchObject({
      messageId: id,
      topic: 'order.created',
      attempt: 1,
      correlationId: 'corr-1',
      destination: 'orders',
    });
    await until(() => h!.poller.inFlight === 0);
    expect(h.metrics.messages.value({ status: 'failed' })).toBe(2);
    expect(h.destinationCount('failure')).toBe(2);
  });

  it("goes dead when the row's own attempt reaches its own max_attempts", async () => {
    h = pollerHarness({
      publishers: [new FakePublisher('http', 'all', failing('HTTP 503: Service Unavailable'))],
    });
    const [atCeiling, noRetries] = await h.insert(
      { topic: 'a', payload: {}, maxAttempts: 2 },
      { topic: 'b', payload: {}, maxAttempts: 0 },
    );
    h.store.row(atCeiling!).attempt = 2;
    h.poller.start();
    await until(() => h!.store.byState('dead').length === 2, 5_000, 'two dead rows');
    expect(h.store.row(atCeiling!)).toMatchObject({
      state: 'dead',
      attempt: 2,
      lastError: 'HTTP 503: Service Unavailable',
    });
    expect(h.store.row(noRetries!)).toMatchObject({ state: 'dead', attempt: 0, claimedAt: null });
    expect(h.logger.messages('error').sort()).toEqual(
      [
        `Message ${atCeiling} reached 2 attempts and is now dead. Reason: HTTP 503: Service Unavailable`,
        `Message ${noRetries} reached 0 attempts and is now dead. Reason: HTTP 503: Service Unavailable`,
      ].sort(),
    );
    await until(() => h!.poller.inFlight === 0);
    expect(h.metrics.messages.value({ status: 'dead' })).toBe(2);
    expect(h.metrics.messages.value({ status: 'failed' })).toBe(0);
  });

  it('sends a row with no matching route to dead with the reference reason, without publishing', async () => {
    h = pollerHarness({ router: fakeRouter({ 'order.created': { destination: 'orders' } }) });
    const [id] = await h.insert({ topic: 'invoice.sent', payload: {} });
    h.poller.start();
    await until(() => h!.store.row(id!).state === 'dead');
    expect(h.store.row(id!).lastError).toBe("No route matches topic 'invoice.sent'");
    expect(h.store.row(id!).attempt).toBe(0);
    expect(h.publisher.requests).toHaveLength(0);
    await until(() => h!.poller.inFlight === 0);
    expect(h.metrics.messages.value({ status: 'dead' })).toBe(1);
  });

  it('sends a row whose destination no publisher supports to dead', async () => {
    h = pollerHarness({ publishers: [new FakePublisher('rabbitmq', ['events'])] });
    const [id] = await h.insert({ topic: 'order.created', payload: {} });
    h.poller.start();
    await until(() => h!.store.row(id!).state === 'dead');
    expect(h.store.row(id!).lastError).toBe("No publisher supports destination 'orders'");
    expect(h.publisher.requests).toHaveLength(0);
  });

  it("hands a row to the publisher of its destination's type, not the first that would take it", async () => {
    const http = new FakePublisher('http');
    const rabbit = new FakePublisher('rabbitmq');
    h = pollerHarness({
      router: fakeRouter({
        'order.created': { destination: 'orders' },
        'order.shipped': { destination: 'events', destinationType: 'rabbitmq' },
      }),
      publishers: [http, rabbit],
    });
    const [created, shipped] = await h.insert(
      { topic: 'order.created', payload: {} },
      { topic: 'order.shipped', payload: {} },
    );
    h.poller.start();
    await until(
      () => h!.store.row(created!).state === 'sent' && h!.store.row(shipped!).state === 'sent',
    );
    expect(http.requests.map((r) => r.destination)).toEqual(['orders']);
    expect(rabbit.requests.map((r) => r.destination)).toEqual(['events']);
  });

  it('publishes the transformed payload and keeps the stored one', async () => {
    h = pollerHarness({
      router: fakeRouter({ '*': { destination: 'orders', routeTransform: transformStage } }),
      pipeline: fakePipeline((m) => ({
        kind: 'success',
        payload: JsonPayload.fromValue({ wrapped: m.payload.value }),
      })),
    });
    const [id] = await h.insert({ topic: 't', payload: { n: 1 } });
    h.poller.start();
    await until(() => h!.store.row(id!).state === 'sent');
    expect(h.publisher.requests[0]!.payload.value).toEqual({ wrapped: { n: 1 } });
    expect(h.store.row(id!).payload).toEqual({ n: 1 });
  });

  it('takes the failure path on a transform error and dead-letters on a transform Dead', async () => {
    h = pollerHarness({
      router: fakeRouter({ '*': { destination: 'orders', destinationTransform: transformStage } }),
      pipeline: fakePipeline((m) =>
        m.topic === 'bad'
          ? { kind: 'error', reason: 'Evaluation timed out after 100 ms' }
          : { kind: 'dead' },
      ),
    });
    const [bad, dead] = await h.insert(
      { topic: 'bad', payload: {} },
      { topic: 'poison', payload: {} },
    );
    h.poller.start();
    await until(() => h!.store.row(bad!).attempt === 1 && h!.store.row(dead!).state === 'dead');
    expect(h.store.row(bad!)).toMatchObject({
      state: 'pending',
      lastError: 'Transform failed: Evaluation timed out after 100 ms',
    });
    expect(h.store.row(dead!)).toMatchObject({
      state: 'dead',
      attempt: 0,
      lastError: 'Transform dead-lettered the message',
    });
    expect(h.publisher.requests).toHaveLength(0);
  });

  it('fails the publish of a row whose address rendered blank', async () => {
    h = pollerHarness({
      router: fakeRouter({
        '*': { destination: 'events', destinationType: 'nats', address: '  ' },
      }),
      publishers: [new FakePublisher('nats')],
    });
    const [id] = await h.insert({ topic: 't', payload: {} });
    h.poller.start();
    await until(() => h!.store.row(id!).attempt === 1);
    expect(h.store.row(id!).lastError).toBe("The address of destination 'events' rendered empty");
    expect(h.publisher.requests).toHaveLength(0);
  });

  it("fails the publish with the router's reason when it names why the address is blank", async () => {
    const problem =
      "The address template of destination 'events' rendered empty (subject '{{ payload.to }}')";
    h = pollerHarness({
      router: fakeRouter({
        '*': {
          destination: 'events',
          destinationType: 'nats',
          address: '',
          addressProblem: problem,
        },
      }),
      publishers: [new FakePublisher('nats')],
    });
    const [id] = await h.insert({ topic: 't', payload: {} });
    h.poller.start();
    await until(() => h!.store.row(id!).attempt === 1);
    expect(h.store.row(id!).lastError).toBe(problem);
    expect(h.publisher.requests).toHaveLength(0);
  });

  it('takes the failure path with a sanitized cause chain when a publisher throws', async () => {
    const cause = new Error('connect ECONNREFUSED postgres://app:s3cret@db:5432/app');
    h = pollerHarness({
      publishers: [
        new FakePublisher('http', 'all', () => {
          throw new Error('Publish failed', { cause });
        }),
      ],
    });
    const [id] = await h.insert({ topic: 't', payload: {} });
    h.poller.start();
    await until(() => h!.store.row(id!).attempt === 1);
    expect(h.store.row(id!).lastError).toBe(
      'Error: Publish failed | caused by Error: connect ECONNREFUSED postgres://***@db:5432/app',
    );
  });

  it('counts an unexpected exception and still runs the failure path', async () => {
    h = pollerHarness({
      router: {
        route: () => {
          throw new Error('router exploded');
        },
        destinationOf: () => null,
      },
    });
    const [id] = await h.insert({ topic: 't', payload: {} });
    h.poller.start();
    await until(() => h!.store.row(id!).attempt === 1);
    expect(h.store.row(id!)).toMatchObject({
      state: 'pending',
      lastError: 'Error: router exploded',
    });
    expect(h.logger.messages('error')).toContain(
      `Processing message ${id} failed unexpectedly. Reason: Error: router exploded`,
    );
    await until(() => h!.poller.inFlight === 0);
    expect(h.metrics.processErrors.value()).toBe(1);
    expect(h.metrics.messages.value({ status: 'failed' })).toBe(1);
  });

  it('writes a published message sent again when the sent write throws, not a retry', async () => {
    h = pollerHarness();
    const [id] = await h.insert({ topic: 't', key: 'k', payload: {} });
    // The database restarts while the publish is answered: two sent writes fail, the third lands.
    h.store.failNext('complete', new Error('Connection terminated unexpectedly'), 2);
    h.poller.start();
    await until(() => h!.store.row(id!).state === 'sent', 5_000, 'the row sent');
    expect(h.store.row(id!).attempt).toBe(0);
    expect(h.publisher.requests).toHaveLength(1);
    expect(h.logger.messages('warn')).toEqual([
      `Message ${id} was published, but marking it sent failed; trying again in 100 ms. Reason: Error: Connection terminated unexpectedly`,
      `Message ${id} was published, but marking it sent failed; trying again in 200 ms. Reason: Error: Connection terminated unexpectedly`,
    ]);
    await until(() => h!.poller.inFlight === 0);
    expect(h.metrics.processErrors.value()).toBe(0);
    expect(h.metrics.messages.value({ status: 'sent' })).toBe(1);
  });

  it('treats a sent write that keeps failing for claimTimeoutMs as an unexpected exception and schedules a retry', async () => {
    // Tried after 0, 100, 200 and 400 ms; the next wait (800 ms) would pass the 1,000 ms budget.
    h = pollerHarness({ config: { claimTimeoutMs: 1000 } });
    const [id] = await h.insert({ topic: 't', payload: {} });
    h.store.failNext('complete', new Error('Connection terminated unexpectedly'), 4);
    h.poller.start();
    await until(() => h!.store.row(id!).attempt === 1, 5_000, 'a retry scheduled');
    expect(h.store.row(id!)).toMatchObject({
      state: 'pending',
      lastError: 'Error: Connection terminated unexpectedly',
    });
    await until(() => h!.poller.inFlight === 0);
    expect(h.metrics.processErrors.value()).toBe(1);
    expect(h.metrics.messages.value({ status: 'sent' })).toBe(0);
  });
});
