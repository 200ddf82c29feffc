import type { ReplayFilter } from '@queuebox/core';
import { describe, expect, it } from 'vitest';
import {
  describeReplay,
  parseReplayRequest,
  replayOutbox,
  resolveReplayFilter,
  type ReplayDeps,
  type ReplayRequest,
} from './admin-replay.js';

const ID = '00000000-0000-4000-8000-000000000001';

/** A store that knows three topics and records the filter it was asked to replay. */
function recordingDeps(): ReplayDeps & { readonly filters: ReplayFilter[] } {
  const filters: ReplayFilter[] = [];
  const routes: Record<string, string> = {
    'order.created': 'orders',
    'order.paid': 'orders',
    'invoice.sent': 'billing',
  };
  return {
    filters,
    store: {
      distinctTopics: () => Promise.resolve(Object.keys(routes)),
      replay: (filter) => {
        filters.push(filter);
        return Promise.resolve(7);
      },
    },
    destinationOf: (topic) => routes[topic] ?? null,
  };
}

function request(body: Record<string, unknown>): ReplayRequest {
  const parsed = parseReplayRequest(body);
  if (parsed === 'empty' || 'invalid' in parsed)
    throw new Error(`not a request: ${JSON.stringify(parsed)}`);
  return parsed;
}

describe('parseReplayRequest', () => {
  it('is empty when no filter is set, lists included', () => {
    for (const body of [{}, { ids: [] }, { topic: null, topics: [] }, { topic: '' }]) {
      expect(parseReplayRequest(body)).toBe('empty');
    }
  });

  it('names what is invalid', () => {
    expect(parseReplayRequest([])).toEqual({ invalid: 'the body must be a JSON object' });
    expect(parseReplayRequest({ ids: ['nope'] })).toEqual({
      invalid: "'nope' in 'ids' is not a UUID",
    });
    expect(parseReplayRequest({ topics: 'x' })).toEqual({
      invalid: "'topics' must be a list of strings",
    });
    expect(parseReplayRequest({ topic: 3 })).toEqual({ invalid: "'topic' must be a string" });
    expect(parseReplayRequest({ createdAfter: 'yesterday' })).toEqual({
      invalid: "'createdAfter' must be an ISO-8601 instant such as 2026-01-31T12:00:00Z",
    });
    // An instant without a zone is refused: the server's zone would decide what it means.
    expect(parseReplayRequest({ createdBefore: '2026-01-31T12:00:00' })).toHaveProperty('invalid');
  });

  it('reads every filter', () => {
    expect(
      parseReplayRequest({
        ids: [ID],
        topic: 'order.paid',
        topics: ['order.paid', 'order.created'],
        destination: 'orders',
        createdAfter: '2026-01-01T00:00:00Z',
        createdBefore: '2026-02-01T00:00:00+01:00',
      }),
    ).toEqual({
      ids: [ID],
      topic: 'order.paid',
      topics: ['order.paid', 'order.created'],
      destination: 'orders',
      createdAfter: new Date('2026-01-01T00:00:00Z'),
      createdBefore: new Date('2026-01-31T23:00:00Z'),
    });
  });
});

describe('resolveReplayFilter', () => {
  it('intersects topic, topics and destination: a destination never adds topics', async () => {
    const deps = recordingDeps();
    expect(await resolveReplayFilter(request({ destination: 'orders' }), deps)).toMatchObject({
      topics: ['order.created', 'order.paid'],
    });
    expect(
      await resolveReplayFilter(
        request({ destination: 'orders', topics: ['order.paid', 'invoice.sent'] }),
        deps,
      ),
    ).toMatchObject({ topics: ['order.paid'] });
    expect(
      await resolveReplayFilter(request({ topic: 'order.paid', topics: ['invoice.sent'] }), deps),
    ).toMatchObject({ topics: [] });
    expect(await resolveReplayFilter(request({ ids: [ID] }), deps)).toEqual({
      ids: [ID],
      topics: null,
      createdAfter: null,
      createdBefore: null,
    });
  });

  it('is null when a destination receives none of the topics', async () => {
    const deps = recordingDeps();
    expect(await resolveReplayFilter(request({ destination: 'nowhere' }), deps)).toBeNull();
    expect(
      await resolveReplayFilter(request({ destination: 'billing', topic: 'order.paid' }), deps),
    ).toBeNull();
  });
});

describe('replayOutbox', () => {
  it('replays through the store and describes the filter', async () => {
    const deps = recordingDeps();
    const outcome = await replayOutbox(
      request({ destination: 'billing', createdAfter: '2026-01-01T00:00:00Z' }),
      deps,
    );
    expect(outcome).toEqual({
      moved: 7,
      description: 'destination=billing createdAfter=2026-01-01T00:00:00.000Z',
    });
    expect(deps.filters).toEqual([
      {
        ids: null,
        topics: ['invoice.sent'],
        createdAfter: new Date('2026-01-01T00:00:00Z'),
        createdBefore: null,
      },
    ]);
  });

  it('moves nothing and asks the store nothing when no row can match', async () => {
    const deps = recordingDeps();
    expect(await replayOutbox(request({ destination: 'nowhere' }), deps)).toEqual({
      moved: 0,
      description: 'destination=nowhere',
    });
    expect(deps.filters).toEqual([]);
  });

  it('describes ids by count and topics as a list', () => {
    expect(describeReplay(request({ ids: [ID, ID], topics: ['a', 'b'], topic: 'a' }))).toBe(
      'ids=2 topic=a topics=a,b',
    );
  });
});
