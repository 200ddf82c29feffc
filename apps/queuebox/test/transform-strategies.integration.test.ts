import { describe, expect, it } from 'vitest';
import { e2eServices } from './e2e-services.js';
import { eventually } from './service.js';
import { sinkScenario } from './sink-scenario.js';
import { RELAY_OFF, httpSink } from './yaml-blocks.js';

const { ready, pgUrl } = await e2eServices('app: transform error strategies');

interface Row {
  state: string;
  attempt: number;
  last_error: string | null;
}

/**
 * Promise G5 of the README (spec §18.1): a failing route transform follows its `onError`
 * strategy, seen where it matters, in the outbox table and at a real HTTP receiver. `Fail` takes
 * the retry path (attempt + 1 after a backoff, dead at the row's ceiling), `Skip` delivers the
 * stored payload as it is, `Dead` makes the row dead at once without a publish. The unit tests of
 * the pipeline and the poller pin the same rules on fakes; this one runs the real service on a
 * real database.
 */
describe.skipIf(!ready)('transform errors follow the route strategy', () => {
  const h = sinkScenario({
    pgUrl,
    database: 'qb_transform_strategies',
    yaml: (sinkUrl) => `
outbox:
  pollIntervalMs: 50
  retryBaseDelayMs: 100
${RELAY_OFF}
destinations:
${httpSink(sinkUrl)}
    path: /events
routes:
  - topicPattern: "fail.*"
    destination: sink
    transform:
      expression: "$attempt < 1 ? $error('not before the first retry') : {'wrapped': $}"
      onError: Fail
  - topicPattern: "failing.*"
    destination: sink
    transform:
      expression: "$error('never')"
      onError: Fail
  - topicPattern: "skip.*"
    destination: sink
    transform:
      expression: "$error('refused')"
      onError: Skip
  - topicPattern: "dead.*"
    destination: sink
    transform:
      expression: "$error('poison')"
      onError: Dead
`,
  });

  const insert = async (topic: string, payloadText: string, maxAttempts = 5) => {
    const [row] = await h.db.sql<{ id: string }[]>`
      INSERT INTO outbox (topic, payload, max_attempts)
      VALUES (${topic}, ${payloadText}::text::jsonb, ${maxAttempts}) RETURNING id::text AS id`;
    return row!.id;
  };
  const row = async (id: string) =>
    (
      await h.db.sql<Row[]>`SELECT state, attempt, last_error FROM outbox WHERE id = ${id}::uuid`
    )[0]!;
  const deliveries = (id: string) =>
    h.sink.requests.filter((r) => r.headers['x-message-id'] === id);
  const settled = (id: string, state: string) =>
    eventually(async () => {
      const current = await row(id);
      return current.state === state ? current : undefined;
    });

  it('Fail takes the retry path: the failed attempt counts, and the retry delivers', async () => {
    const id = await insert('fail.once', '{"order": 1}');
    const sent = await settled(id, 'sent');
    expect(sent.attempt).toBe(1);
    expect(sent.last_error).toBe(
      'Transform failed: routes[0].transform.expression: not before the first retry',
    );
    const received = deliveries(id);
    expect(received.map((r) => r.headers['x-attempt'])).toEqual(['1']);
    expect(JSON.parse(received[0]!.body)).toEqual({ wrapped: { order: 1 } });
  });

  it('Fail retries up to the row’s max_attempts, then the row is dead, never published', async () => {
    const id = await insert('failing.always', '{"order": 2}', 2);
    const dead = await settled(id, 'dead');
    expect(dead.attempt).toBe(2);
    expect(dead.last_error).toBe('Transform failed: routes[1].transform.expression: never');
    expect(deliveries(id)).toEqual([]);
  });

  it('Skip delivers the stored payload as it is, at the first attempt', async () => {
    // Every digit kept: the skipped stage never turned the payload into JavaScript numbers.
    const id = await insert('skip.it', '{"id": 12345678901234567890, "amount": 1.50}');
    const sent = await settled(id, 'sent');
    expect(sent.attempt).toBe(0);
    const received = deliveries(id);
    expect(received).toHaveLength(1);
    expect(received[0]!.headers['x-attempt']).toBe('0');
    expect(received[0]!.body).toBe('{"id": 12345678901234567890, "amount": 1.50}');
  });

  it('Dead makes the row dead at once: no retry, no publish', async () => {
    const id = await insert('dead.poison', '{"order": 3}');
    const dead = await settled(id, 'dead');
    expect(dead.attempt).toBe(0);
    expect(dead.last_error).toBe('Transform dead-lettered the message');
    expect(deliveries(id)).toEqual([]);
  });
});
