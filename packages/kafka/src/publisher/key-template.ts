/**
 * The Kafka destination `keyTemplate` (spec §5.3): exactly `{{ topic }}` and `{{ key }}` (a
 * missing key is empty), a plain literal replacement as the relay's source topic is, because the
 * reference never parsed it with the full template language. Returns null for a blank result,
 * which means "send no record key".
 */
export function renderKafkaKey(
  template: string,
  values: { readonly topic: string; readonly key: string | null },
): string | null {
  const rendered = template.replace(/\{\{ topic }}|\{\{ key }}/g, (match) =>
    match === '{{ topic }}' ? values.topic : (values.key ?? ''),
  );
  return rendered.trim() === '' ? null : rendered;
}
