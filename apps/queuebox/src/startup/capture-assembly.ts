import { CaptureService, type CaptureMetrics } from '@queuebox/capture';
import type { AppConfig, DeliveryLoad, Logger } from '@queuebox/core';
import type { HealthComponent } from '../http/health.js';
import { loadCaptureProvider, providers, type ProviderRegistry } from '../providers.js';

export interface BuiltCapture {
  readonly service: CaptureService;
  /** `outbox-capture`: advisory, so a capture outage never makes readiness 503 (spec §11.4). */
  readonly health: HealthComponent;
}

/**
 * Capture (spec §10), only with `outbox.capture.enabled`: the mode's source from the provider
 * registry, the capture service around it, waking the poller through `wake`. The unbuilt
 * guard has already refused a mode this build has no provider for.
 */
export async function buildCapture(
  config: AppConfig,
  deps: {
    readonly wake: () => void;
    readonly logger: Logger;
    readonly metrics: CaptureMetrics;
    /** The poller's load: capture's feed is closed while it is busy. */
    readonly load?: DeliveryLoad;
  },
  registry: ProviderRegistry = providers,
): Promise<BuiltCapture | null> {
  const capture = config.outbox.capture;
  if (!capture.enabled) return null;
  const provider = await loadCaptureProvider(capture.mode, registry);
  const service = new CaptureService({
    capture,
    source: provider.createCaptureSource(config, { logger: deps.logger }),
    wake: deps.wake,
    logger: deps.logger,
    metrics: deps.metrics,
    ...(deps.load ? { load: deps.load } : {}),
  });
  return {
    service,
    health: { name: 'outbox-capture', advisory: true, check: () => service.healthy },
  };
}
