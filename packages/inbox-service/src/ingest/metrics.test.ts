import { Counter, Gauge, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { inboxMetrics } from './metrics.js';

describe('inboxMetrics', () => {
  it('registers the three families of spec §14 with their labels', async () => {
    const registry = new Registry();
    const metrics = inboxMetrics(registry);
    metrics.messages.inc({ status: 'new' });
    metrics.rejections.inc({ reason: 'storage_failed' });
    metrics.filtered.inc({ source: 'stripe' });
    const text = await registry.metrics();
    expect(text).toContain('# TYPE queuebox_inbox_messages_total counter');
    expect(text).toContain('queuebox_inbox_messages_total{status="new"} 1');
    expect(text).toContain('queuebox_inbox_rejections_total{reason="storage_failed"} 1');
    expect(text).toContain('queuebox_inbox_filtered_total{source="stripe"} 1');
  });

  it('returns the same counters to a second caller (the relay) on the same registry', () => {
    const registry = new Registry();
    const first = inboxMetrics(registry);
    const second = inboxMetrics(registry);
    expect(second.messages).toBe(first.messages);
    expect(second.rejections).toBe(first.rejections);
    expect(second.filtered).toBe(first.filtered);
  });

  it('refuses a same-named metric of another type or with other labels', () => {
    const gauge = new Registry();
    new Gauge({ name: 'queuebox_inbox_messages_total', help: 'h', registers: [gauge] });
    expect(() => inboxMetrics(gauge)).toThrow(/another type/);
    const labels = new Registry();
    new Counter({
      name: 'queuebox_inbox_messages_total',
      help: 'h',
      labelNames: ['state'],
      registers: [labels],
    });
    expect(() => inboxMetrics(labels)).toThrow(/labels \[state\]/);
  });
});
