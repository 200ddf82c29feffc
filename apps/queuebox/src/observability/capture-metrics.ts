import type { CaptureMetrics } from '@queuebox/capture';
import { Gauge, type Registry } from 'prom-client';

/**
 * The capture family (docs/metrics.md). Registered in every process, so its `# TYPE` line is in
 * every scrape like the others'; a series exists only while a durable slot of the configured
 * name does (QueueBox 0.8.1's, which nobody reads any more and which retains WAL).
 */
export function registerCaptureMetrics(registry: Registry): CaptureMetrics {
  const gauge = new Gauge({
    name: 'queuebox_capture_durable_slot_retained_bytes',
    help: 'WAL bytes a durable replication slot of outbox.capture.slot retains (left by QueueBox 0.8.1; drop it)',
    labelNames: ['slot'],
    registers: [registry],
  });
  return {
    durableSlotRetained(slot, bytes) {
      if (bytes === null) gauge.remove({ slot });
      else gauge.set({ slot }, bytes);
    },
  };
}
