/**
 * The OTLP trace export request (opentelemetry-proto, `ExportTraceServiceRequest`) decoded from
 * protobuf or from OTLP/JSON into one flat shape, so a test reads spans the same way whichever
 * protocol the exporter used. Only the fields a test asserts on are kept.
 *
 * Field numbers (opentelemetry/proto/trace/v1/trace.proto, common/v1/common.proto):
 * request 1 resource_spans; ResourceSpans 1 resource, 2 scope_spans; Resource 1 attributes;
 * ScopeSpans 1 scope, 2 spans; InstrumentationScope 1 name; Span 1 trace_id, 2 span_id,
 * 3 trace_state, 4 parent_span_id, 5 name, 6 kind, 7 start, 8 end, 9 attributes, 11 events,
 * 15 status; Event 1 time, 2 name, 3 attributes; Status 2 message, 3 code; KeyValue 1 key,
 * 2 value; AnyValue 1 string, 2 bool, 3 int, 4 double, 5 array, 6 kvlist, 7 bytes.
 */
import { double, hex, int64, readFields, text, uint64, type WireField } from './protobuf-reader.js';

export type AttributeValue = string | number | boolean | readonly AttributeValue[] | null;

export interface OtlpEvent {
  readonly name: string;
  readonly attributes: Readonly<Record<string, AttributeValue>>;
}

export interface OtlpSpan {
  readonly traceId: string;
  readonly spanId: string;
  /** Empty for a root span. */
  readonly parentSpanId: string;
  readonly traceState: string;
  readonly name: string;
  /** 1 internal, 2 server, 3 client, 4 producer, 5 consumer (0 unspecified). */
  readonly kind: number;
  readonly startTimeUnixNano: bigint;
  readonly endTimeUnixNano: bigint;
  readonly attributes: Readonly<Record<string, AttributeValue>>;
  readonly events: readonly OtlpEvent[];
  /** 0 unset, 1 ok, 2 error. */
  readonly status: { readonly code: number; readonly message: string };
  readonly resource: Readonly<Record<string, AttributeValue>>;
  readonly scope: string;
}

export const OtlpSpanKind = {
  internal: 1,
  server: 2,
  client: 3,
  producer: 4,
  consumer: 5,
} as const;

// ---------------------------------------------------------------- protobuf

export function decodeProtobufTraces(bytes: Uint8Array): OtlpSpan[] {
  const spans: OtlpSpan[] = [];
  for (const resourceSpans of messages(readFields(bytes), 1)) {
    const fields = readFields(resourceSpans);
    const resource: Record<string, AttributeValue> = {};
    for (const resourceBytes of messages(fields, 1)) {
      Object.assign(resource, protoAttributes(readFields(resourceBytes), 1));
    }
    for (const scopeSpans of messages(fields, 2)) {
      const scopeFields = readFields(scopeSpans);
      let scope = '';
      for (const scopeBytes of messages(scopeFields, 1)) {
        scope = stringField(readFields(scopeBytes), 1);
      }
      for (const spanBytes of messages(scopeFields, 2)) {
        spans.push(protoSpan(readFields(spanBytes), resource, scope));
      }
    }
  }
  return spans;
}

function protoSpan(
  fields: WireField[],
  resource: Record<string, AttributeValue>,
  scope: string,
): OtlpSpan {
  let status = { code: 0, message: '' };
  for (const statusBytes of messages(fields, 15)) {
    const statusFields = readFields(statusBytes);
    status = { code: varintField(statusFields, 3), message: stringField(statusFields, 2) };
  }
  return {
    traceId: hexField(fields, 1),
    spanId: hexField(fields, 2),
    traceState: stringField(fields, 3),
    parentSpanId: hexField(fields, 4),
    name: stringField(fields, 5),
    kind: varintField(fields, 6),
    startTimeUnixNano: fixed64Field(fields, 7),
    endTimeUnixNano: fixed64Field(fields, 8),
    attributes: protoAttributes(fields, 9),
    events: messages(fields, 11).map((eventBytes) => {
      const eventFields = readFields(eventBytes);
      return { name: stringField(eventFields, 2), attributes: protoAttributes(eventFields, 3) };
    }),
    status,
    resource,
    scope,
  };
}

function protoAttributes(fields: WireField[], number: number): Record<string, AttributeValue> {
  const attributes: Record<string, AttributeValue> = {};
  for (const keyValue of messages(fields, number)) {
    const kv = readFields(keyValue);
    const valueBytes = messages(kv, 2)[0];
    attributes[stringField(kv, 1)] = valueBytes === undefined ? null : protoValue(valueBytes);
  }
  return attributes;
}

function protoValue(bytes: Uint8Array): AttributeValue {
  const field = readFields(bytes)[0];
  if (field === undefined) return null;
  switch (field.number) {
    case 1:
      return field.type === 'bytes' ? text(field.bytes) : null;
    case 2:
      return field.type === 'varint' ? field.value !== 0n : null;
    case 3:
      return field.type === 'varint' ? Number(int64(field.value)) : null;
    case 4:
      return field.type === 'fixed64' ? double(field.bytes) : null;
    case 5:
      return field.type === 'bytes'
        ? messages(readFields(field.bytes), 1).map((value) => protoValue(value))
        : null;
    case 7:
      return field.type === 'bytes' ? hex(field.bytes) : null;
    default:
      return null;
  }
}

function messages(fields: WireField[], number: number): Uint8Array[] {
  const found: Uint8Array[] = [];
  for (const field of fields) {
    if (field.number === number && field.type === 'bytes') found.push(field.bytes);
  }
  return found;
}

function stringField(fields: WireField[], number: number): string {
  const bytes = messages(fields, number).at(-1);
  return bytes === undefined ? '' : text(bytes);
}

function hexField(fields: WireField[], number: number): string {
  const bytes = messages(fields, number).at(-1);
  return bytes === undefined ? '' : hex(bytes);
}

function varintField(fields: WireField[], number: number): number {
  const field = fields.findLast((f) => f.number === number && f.type === 'varint');
  return field?.type === 'varint' ? Number(field.value) : 0;
}

function fixed64Field(fields: WireField[], number: number): bigint {
  const field = fields.findLast((f) => f.number === number && f.type === 'fixed64');
  return field?.type === 'fixed64' ? uint64(field.bytes) : 0n;
}

// ---------------------------------------------------------------- OTLP/JSON

interface JsonKeyValue {
  key: string;
  value?: JsonAnyValue;
}
interface JsonAnyValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: string | number;
  doubleValue?: number;
  arrayValue?: { values?: JsonAnyValue[] };
  bytesValue?: string;
}

/** OTLP/JSON: ids are hex strings, 64-bit integers may be strings, enums are numbers. */
export function decodeJsonTraces(body: string): OtlpSpan[] {
  const request = JSON.parse(body) as {
    resourceSpans?: {
      resource?: { attributes?: JsonKeyValue[] };
      scopeSpans?: {
        scope?: { name?: string };
        spans?: {
          traceId?: string;
          spanId?: string;
          parentSpanId?: string;
          traceState?: string;
          name?: string;
          kind?: number;
          startTimeUnixNano?: string | number;
          endTimeUnixNano?: string | number;
          attributes?: JsonKeyValue[];
          events?: { name?: string; attributes?: JsonKeyValue[] }[];
          status?: { code?: number; message?: string };
        }[];
      }[];
    }[];
  };
  const spans: OtlpSpan[] = [];
  for (const resourceSpans of request.resourceSpans ?? []) {
    const resource = jsonAttributes(resourceSpans.resource?.attributes);
    for (const scopeSpans of resourceSpans.scopeSpans ?? []) {
      for (const span of scopeSpans.spans ?? []) {
        spans.push({
          traceId: span.traceId ?? '',
          spanId: span.spanId ?? '',
          parentSpanId: span.parentSpanId ?? '',
          traceState: span.traceState ?? '',
          name: span.name ?? '',
          kind: span.kind ?? 0,
          startTimeUnixNano: BigInt(span.startTimeUnixNano ?? 0),
          endTimeUnixNano: BigInt(span.endTimeUnixNano ?? 0),
          attributes: jsonAttributes(span.attributes),
          events: (span.events ?? []).map((event) => ({
            name: event.name ?? '',
            attributes: jsonAttributes(event.attributes),
          })),
          status: { code: span.status?.code ?? 0, message: span.status?.message ?? '' },
          resource,
          scope: scopeSpans.scope?.name ?? '',
        });
      }
    }
  }
  return spans;
}

function jsonAttributes(list: JsonKeyValue[] | undefined): Record<string, AttributeValue> {
  const attributes: Record<string, AttributeValue> = {};
  for (const { key, value } of list ?? []) attributes[key] = jsonValue(value);
  return attributes;
}

function jsonValue(value: JsonAnyValue | undefined): AttributeValue {
  if (value === undefined) return null;
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.arrayValue !== undefined) return (value.arrayValue.values ?? []).map(jsonValue);
  if (value.bytesValue !== undefined) return value.bytesValue;
  return null;
}
