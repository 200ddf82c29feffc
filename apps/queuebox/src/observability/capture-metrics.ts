import type { CaptureFeedState, CaptureMetrics } from '@queuebox/capture';
import { Gauge, type Registry } from './prom.js';

/**
 * The capture family (docs/metrics.md). Registered in every process, so its `# TYPE` line is in
 * every scrape like the others'. A durable-slot series exists only while a durable slot of the
 * configured name does (QueueBox 0.8.1's, which nobody reads any more and which retains WAL);
 * the feed-state series exist only in the process that runs capture (`enabled: true`).
 */
export function registerCaptureMetrics(registry: Registry): CaptureMetrics {
  const gauge = new Gauge({
    name: 'queuebox_capture_durable_slot_retained_bytes',
    help: 'WAL bytes a durable replication slot of outbox.capture.slot retains (left by QueueBox 0.8.1; drop it)',
    labelNames: ['slot'],
    registers: [registry],
  });
  const feed = new Gauge({
    name: 'queuebox_capture_feed_state',
    help: "Capture's change feed: 1 for the state it is in (streaming, paused while the outbox poller is busy, down), 0 for the others",
    labelNames: ['state'],
    registers: [registry],
  });
  const states: readonly CaptureFeedState[] = ['streaming', 'paused', 'down'];
  return {
    durableSlotRetained(slot, bytes) {
      if (bytes === null) gauge.remove({ slot });
      else gauge.set({ slot }, bytes);
    },
    feedState(current) {
      for (const state of states) feed.set({ state }, state === current ? 1 : 0);
    },
  };
}
