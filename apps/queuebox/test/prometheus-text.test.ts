import { describe, expect, it } from 'vitest';
import { parseScrape, select, selectorsOf } from './prometheus-text.js';

describe('the PromQL and scrape reading of the dashboard test', () => {
  it('finds metric selectors and their matchers, not names inside strings', () => {
    const selectors = selectorsOf(
      'sum by (destination) (rate(queuebox_outbox_destination_messages_total{outcome="failure", destination=~"a|b"}[5m])) / count(queuebox) + up{job="queuebox"}',
    );
    expect(selectors.map((s) => s.metric)).toEqual([
      'queuebox_outbox_destination_messages_total',
      'queuebox',
    ]);
    expect(selectors[0]?.matchers).toEqual([
      { label: 'outcome', op: '=', value: 'failure' },
      { label: 'destination', op: '=~', value: 'a|b' },
    ]);
  });

  it('selects the samples of a scrape that match', () => {
    const samples = parseScrape(
      [
        '# TYPE queuebox_outbox_messages_total counter',
        'queuebox_outbox_messages_total{status="sent"} 3',
        'queuebox_outbox_messages_total{status="dead"} 1',
        'queuebox_uptime_seconds 12.5',
      ].join('\n'),
    );
    const [dead] = selectorsOf('queuebox_outbox_messages_total{status="dead"}');
    expect(select(samples, dead!)).toEqual([
      { metric: 'queuebox_outbox_messages_total', labels: { status: 'dead' }, value: 1 },
    ]);
    const [failed] = selectorsOf('queuebox_outbox_messages_total{status="failed"}');
    expect(select(samples, failed!)).toEqual([]);
    const [notSent] = selectorsOf('queuebox_outbox_messages_total{status!~"sent|failed"}');
    expect(select(samples, notSent!).map((s) => s.labels.status)).toEqual(['dead']);
  });
});
