import type { HttpStatusClass } from '@queuebox/core';

/** The `status_class` label of `queuebox_http_publish_responses_total` (spec §14). */
export type { HttpStatusClass };

const CLASSES: readonly HttpStatusClass[] = ['1xx', '2xx', '3xx', '4xx', '5xx'];

export function statusClassOf(statusCode: number): HttpStatusClass {
  if (!Number.isInteger(statusCode) || statusCode < 100 || statusCode > 599) return 'other';
  return CLASSES[Math.floor(statusCode / 100) - 1] ?? 'other';
}
