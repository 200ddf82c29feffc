import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { outboxMetricListeners } from '@queuebox/outbox-service';
import { registerMetricFamilies } from './metric-families.js';

/** `# TYPE` lines of a scrape: family name → type. */
function families(text: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const line of text.split('\n')) {
    const match = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (match) found.set(match[1]!, match[2]!);
  }
  return found;
}

describe('registerMetricFamilies', () => {
  it('registers exactly the service families of spec §14 with their types', async () => {
    const registry = new Registry();
    registerMetricFamilies(registry);
    const found = families(await registry.metrics());
    expect(Object.fromEntries([...found].sort())).toEqual(
      Object.fromEntries(
        [
          ['queuebox_outbox_messages_total', 'counter'],
          ['queuebox_outbox_messages_pending', 'gauge'],
          ['queuebox_outbox_oldest_pending_age_seconds', 'gauge'],
          ['queuebox_outbox_messages_reclaimed_total', 'counter'],
          ['queuebox_claims_lost_total', 'counter'],
          ['queuebox_outbox_process_errors_total', 'counter'],
          ['queuebox_outbox_processing_duration_seconds', 'summary'],
          ['queuebox_outbox_processing_duration_seconds_max', 'gauge'],
          ['queuebox_outbox_publish_duration_seconds', 'summary'],
          ['queuebox_outbox_publish_duration_seconds_max', 'gauge'],
          ['queuebox_outbox_destination_messages_total', 'counter'],
          ['queuebox_outbox_queue_depth', 'gauge'],
          ['queuebox_http_publish_responses_total', 'counter'],
          ['queuebox_transform_failures_total', 'counter'],
          ['queuebox_cleanup_messages_deleted_total', 'counter'],
          ['queuebox_cleanup_duration_seconds', 'summary'],
          ['queuebox_cleanup_duration_seconds_max', 'gauge'],
          ['queuebox_cleanup_last_run_timestamp', 'gauge'],
          ['queuebox_inbox_messages_total', 'counter'],
          ['queuebox_inbox_rejections_total', 'counter'],
          ['queuebox_inbox_filtered_total', 'counter'],
          ['queuebox_inbox_relay_errors_total', 'counter'],
          ['queuebox_inbox_oldest_pending_age_seconds', 'gauge'],
        ].sort(),
      ),
    );
  });

  it('shows label-less series at 0 from the start and labelled ones only after first use', async () => {
    const registry = new Registry();
    const { outbox: metrics, retention } = registerMetricFamilies(registry);
    const before = await registry.metrics();
    expect(before).toContain('\nqueuebox_outbox_messages_reclaimed_total 0\n');
    expect(before).toContain('\nqueuebox_outbox_process_errors_total 0\n');
    expect(before).toContain('\nqueuebox_outbox_messages_pending 0\n');
    expect(before).toContain('\nqueuebox_outbox_oldest_pending_age_seconds 0\n');
    expect(before).toContain('\nqueuebox_outbox_processing_duration_seconds_count 0\n');
    expect(before).toContain('\nqueuebox_outbox_processing_duration_seconds_max 0\n');
    expect(before).toContain('\nqueuebox_inbox_relay_errors_total 0\n');
    expect(before).toContain('\nqueuebox_inbox_oldest_pending_age_seconds 0\n');
    expect(before).not.toMatch(/^queuebox_inbox_messages_total\{/m);
    expect(before).not.toMatch(/^queuebox_outbox_messages_total\{/m);
    expect(before).not.toMatch(/^queuebox_outbox_publish_duration_seconds_count\{/m);
    expect(before).not.toMatch(/^queuebox_outbox_publish_duration_seconds_max\{/m);

    metrics.messages.inc({ status: 'sent' });
    metrics.publishDuration.observe(0.25, { destination_type: 'http' });
    retention.duration.observe(1.5, { table: 'outbox' });
    const after = await registry.metrics();
    expect(after).toContain('queuebox_outbox_messages_total{status="sent"} 1');
    expect(after).toContain(
      'queuebox_outbox_publish_duration_seconds{quantile="0.5",destination_type="http"} 0.25',
    );
    expect(after).toContain(
      'queuebox_outbox_publish_duration_seconds{quantile="0.95",destination_type="http"} 0.25',
    );
    expect(after).toContain(
      'queuebox_outbox_publish_duration_seconds{quantile="0.99",destination_type="http"} 0.25',
    );
    expect(after).toContain(
      'queuebox_outbox_publish_duration_seconds_count{destination_type="http"} 1',
    );
    expect(after).toContain(
      'queuebox_outbox_publish_duration_seconds_sum{destination_type="http"} 0.25',
    );
    expect(after).toContain(
      'queuebox_outbox_publish_duration_seconds_max{destination_type="http"} 0.25',
    );
    expect(after).toContain('queuebox_cleanup_duration_seconds_max{table="outbox"} 1.5');
  });

  it('lets the `_max` gauge decay after the window while `_count`/`_sum` stay cumulative', async () => {
    let now = 1_000_000;
    const registry = new Registry();
    const { outbox: metrics } = registerMetricFamilies(registry, { nowMs: () => now });
    metrics.processingDuration.observe(2);
    metrics.processingDuration.observe(0.5);
    expect(
      await registry.getSingleMetricAsString('queuebox_outbox_processing_duration_seconds_max'),
    ).toContain('queuebox_outbox_processing_duration_seconds_max 2');
    now += 121_000;
    expect(
      await registry.getSingleMetricAsString('queuebox_outbox_processing_duration_seconds_max'),
    ).toContain('queuebox_outbox_processing_duration_seconds_max 0');
    const summary = await registry.getSingleMetricAsString(
      'queuebox_outbox_processing_duration_seconds',
    );
    expect(summary).toContain('queuebox_outbox_processing_duration_seconds_count 2');
    expect(summary).toContain('queuebox_outbox_processing_duration_seconds_sum 2.5');
  });

  it('hands the poller and the relay one queuebox_claims_lost_total', async () => {
    const registry = new Registry();
    const { outbox, relay } = registerMetricFamilies(registry);
    relay.claimsLost.inc({ component: 'inbox' });
    outbox.claimsLost.inc({ component: 'outbox' });
    const text = await registry.metrics();
    expect(text).toContain('queuebox_claims_lost_total{component="inbox"} 1');
    expect(text).toContain('queuebox_claims_lost_total{component="outbox"} 1');
    expect(text.match(/# TYPE queuebox_claims_lost_total counter/g)).toHaveLength(1);
  });

  it('hands the inbox routes and the relay one queuebox_inbox_messages_total', async () => {
    const registry = new Registry();
    const { inbox, relay } = registerMetricFamilies(registry);
    inbox.messages.inc({ status: 'new' });
    inbox.messages.inc({ status: 'duplicate' });
    relay.messages.inc({ status: 'forwarded' }, 2);
    const text = await registry.metrics();
    expect(text).toContain('queuebox_inbox_messages_total{status="new"} 1');
    expect(text).toContain('queuebox_inbox_messages_total{status="duplicate"} 1');
    expect(text).toContain('queuebox_inbox_messages_total{status="forwarded"} 2');
    expect(text.match(/# TYPE queuebox_inbox_messages_total counter/g)).toHaveLength(1);
  });
});

describe('outboxMetricListeners', () => {
  it('counts HTTP responses by status class and transform failures by strategy', async () => {
    const registry = new Registry();
    const listeners = outboxMetricListeners(registerMetricFamilies(registry).outbox);
    listeners.onResponse('2xx');
    listeners.onResponse('5xx');
    listeners.onResponse('5xx');
    listeners.onTransformFailure('skip');
    const text = await registry.metrics();
    expect(text).toContain('queuebox_http_publish_responses_total{status_class="2xx"} 1');
    expect(text).toContain('queuebox_http_publish_responses_total{status_class="5xx"} 2');
    expect(text).toContain('queuebox_transform_failures_total{strategy="skip"} 1');
  });
});
